import type { ReactNode } from 'react'

/**
 * A list as a table that becomes a stack of cards on a phone (styles.css, `.table-stack`): each cell then
 * shows its column's label beside its value, so nothing scrolls sideways.
 *
 * The roles are spelled out because a table whose rows and cells are restyled as blocks loses its table
 * semantics in some browsers (Safari's VoiceOver among them); with the roles it keeps its headers and cells.
 */

export interface TableColumn {
  label: string
  className?: string
  /** A header only screen readers hear (an actions column, say). */
  labelHidden?: boolean
}

export function StackTable(props: { columns: TableColumn[]; className?: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noRedundantRoles: kept when the phone layout turns the table into blocks (above)
    <table className={`table table-stack ${props.className ?? ''}`} role="table">
      {/* biome-ignore lint/a11y/noRedundantRoles: as above */}
      <thead role="rowgroup">
        <Row>
          {props.columns.map((column) => (
            // biome-ignore lint/a11y/noRedundantRoles: as above
            <th key={column.label} scope="col" role="columnheader" className={column.className}>
              {column.labelHidden ? <span className="sr-only">{column.label}</span> : column.label}
            </th>
          ))}
        </Row>
      </thead>
      {/* biome-ignore lint/a11y/noRedundantRoles: as above */}
      <tbody role="rowgroup">{props.children}</tbody>
    </table>
  )
}

export function Row(props: { className?: string; children: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noRedundantRoles: as above
    <tr role="row" className={props.className}>
      {props.children}
    </tr>
  )
}

/**
 * A cell; `label` is its column's, shown beside the value on a phone (screen readers use the header). The
 * value has a box of its own so that, on a phone, label and value sit side by side however long either is.
 */
export function Cell(props: { label: string; className?: string; title?: string; children?: ReactNode }) {
  return (
    // biome-ignore lint/a11y/noRedundantRoles: as above
    <td role="cell" data-label={props.label} className={props.className} title={props.title}>
      <div className="cell-value">{props.children}</div>
    </td>
  )
}
