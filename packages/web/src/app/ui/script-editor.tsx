import { javascript } from '@codemirror/lang-javascript'
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language'
import { tags } from '@lezer/highlight'
import { basicSetup, EditorView } from 'codemirror'
import { useEffect, useRef } from 'react'

/**
 * Token colours from the app's CSS variables, so both themes keep 4.5:1 contrast (CodeMirror's default
 * style is for light backgrounds only).
 */
const highlight = HighlightStyle.define([
  {
    tag: [tags.keyword, tags.modifier, tags.operatorKeyword, tags.controlKeyword],
    color: 'var(--syn-keyword)',
  },
  { tag: [tags.string, tags.special(tags.string), tags.regexp], color: 'var(--syn-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--syn-number)' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: 'var(--text-2)', fontStyle: 'italic' },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName)], color: 'var(--syn-function)' },
  { tag: [tags.definition(tags.variableName), tags.variableName, tags.propertyName], color: 'var(--text)' },
  { tag: [tags.typeName, tags.className], color: 'var(--syn-type)' },
])

/** CodeMirror 6 with JavaScript/TypeScript highlighting; loaded only on pages that edit scripts. */
export default function ScriptEditor(props: {
  value: string
  onChange(value: string): void
  label: string
  id: string
}) {
  const container = useRef<HTMLDivElement>(null)
  const onChange = useRef(props.onChange)
  onChange.current = props.onChange
  const initial = useRef(props.value)
  useEffect(() => {
    if (!container.current) return
    const view = new EditorView({
      doc: initial.current,
      parent: container.current,
      extensions: [
        basicSetup,
        javascript({ typescript: true }),
        syntaxHighlighting(highlight),
        // Long lines wrap: on a phone a sideways-scrolling editor hides most of each line, and its scroll
        // box can't be reached by keyboard.
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': props.label, id: props.id }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange.current(update.state.doc.toString())
        }),
        EditorView.theme({ '&': { minHeight: '280px' }, '.cm-scroller': { fontFamily: 'var(--mono)' } }),
      ],
    })
    return () => view.destroy()
  }, [props.label, props.id])
  return <div className="script-editor" ref={container} />
}
