import { javascript } from '@codemirror/lang-javascript'
import { basicSetup, EditorView } from 'codemirror'
import { useEffect, useRef } from 'react'

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
