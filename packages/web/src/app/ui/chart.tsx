import { useEffect, useRef, useSyncExternalStore } from 'react'
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { currentTimeZone } from '../format.ts'

export interface Series {
  label: string
  /** Unix seconds, ascending. */
  times: number[]
  values: (number | null)[]
}

const PALETTE = ['#4c6ef5', '#12b886', '#f59f00', '#e64980', '#7950f2', '#15aabf', '#fd7e14', '#82c91e']

/** Aligns series of differing timestamps onto one x axis, as uPlot needs. */
function align(series: Series[]): uPlot.AlignedData {
  const times = [...new Set(series.flatMap((entry) => entry.times))].sort((a, b) => a - b)
  const index = new Map(times.map((time, position) => [time, position]))
  const columns = series.map((entry) => {
    const column: (number | null)[] = new Array(times.length).fill(null)
    entry.times.forEach((time, position) => {
      column[index.get(time) as number] = entry.values[position] ?? null
    })
    return column
  })
  return [times, ...columns] as uPlot.AlignedData
}

const DARK = matchMedia('(prefers-color-scheme: dark)')

/** Redraws charts when the system theme changes: their colours are set when drawn. */
function useDark(): boolean {
  return useSyncExternalStore(
    (listener) => {
      DARK.addEventListener('change', listener)
      return () => DARK.removeEventListener('change', listener)
    },
    () => DARK.matches,
  )
}

/** A uPlot time-series chart sized to its container, in the account's time zone. */
export function TimeChart(props: { title: string; series: Series[]; unit: string; height?: number }) {
  const container = useRef<HTMLDivElement>(null)
  const dark = useDark()
  useEffect(() => {
    const element = container.current
    if (!element) return
    const axisColor = dark ? '#a4adb9' : '#545b66'
    const gridColor = dark ? '#2a313c' : '#e9ecef'
    const axis = { stroke: axisColor, grid: { stroke: gridColor, width: 1 }, ticks: { stroke: gridColor } }
    const zone = currentTimeZone()
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 280),
      height: props.height ?? 220,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), zone),
      series: [
        {},
        ...props.series.map((entry, position) => ({
          label: entry.label,
          stroke: PALETTE[position % PALETTE.length],
          width: 1.75,
          spanGaps: false,
          // Sparse data (a new check, a long bucket) has lone points that a line alone doesn't show.
          points: { show: entry.values.filter((value) => value !== null).length <= 48, size: 6 },
          value: (_: uPlot, value: number | null) =>
            value === null ? '—' : `${value.toFixed(props.unit === '%' ? 2 : 0)} ${props.unit}`,
        })),
      ],
      axes: [
        axis,
        {
          ...axis,
          size: 56,
          values: (_, ticks) => ticks.map((tick) => `${tick}${props.unit === '%' ? '%' : ''}`),
        },
      ],
      scales: props.unit === '%' ? { y: { range: [0, 100] } } : {},
      legend: { live: true },
    }
    const plot = new uPlot(options, align(props.series), element)
    const observer = new ResizeObserver(() =>
      plot.setSize({ width: Math.max(element.clientWidth, 280), height: options.height }),
    )
    observer.observe(element)
    return () => {
      observer.disconnect()
      plot.destroy()
    }
  }, [props.series, props.unit, props.height, dark])
  return <div className="chart" ref={container} role="img" aria-label={props.title} />
}
