import { appendFileSync } from 'node:fs'
import type { CommandContext } from '../command.ts'

/** One check's run, as `svc trigger` reports it. */
export interface RunReport {
  checkId: string
  name: string
  checkType: string
  location: string
  passed: boolean
  degraded: boolean
  responseTime: number
  error: string | null
}

export const REPORTERS = ['list', 'junit', 'github'] as const
export type Reporter = (typeof REPORTERS)[number]

/** The line of one finished run (the list reporter prints them as they arrive). */
export function runLine(ctx: CommandContext, run: RunReport): string {
  const mark = run.passed ? ctx.out.style('green', '✔') : ctx.out.style('red', '✖')
  const degraded = run.degraded ? ' (degraded)' : ''
  const error = run.error ? `: ${run.error}` : ''
  return `${mark} ${run.name} [${run.checkType}, ${run.location}] ${Math.round(run.responseTime)} ms${degraded}${error}`
}

export function summaryLine(runs: RunReport[]): string {
  const failed = runs.filter((run) => !run.passed).length
  return `${runs.length - failed} passed, ${failed} failed`
}

/** JUnit XML, one test case per run: what CI systems show as test results. */
export function junitReport(runs: RunReport[], suite: string): string {
  const failures = runs.filter((run) => !run.passed).length
  const cases = runs.map((run) => {
    const attributes = `name="${xml(run.name)}" classname="${xml(`${run.checkType}.${run.location}`)}" time="${(run.responseTime / 1000).toFixed(3)}"`
    if (run.passed) return `    <testcase ${attributes}/>`
    const message = xml(run.error ?? 'failed')
    return `    <testcase ${attributes}>\n      <failure message="${message}">${message}</failure>\n    </testcase>`
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(suite)}" tests="${runs.length}" failures="${failures}">`,
    `  <testsuite name="${xml(suite)}" tests="${runs.length}" failures="${failures}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

/** A Markdown table for a GitHub Actions job summary. */
export function githubSummary(runs: RunReport[], title: string): string {
  const rows = runs.map((run) => {
    const result = run.passed ? (run.degraded ? '🟡 degraded' : '✅ passed') : '❌ failed'
    const error = (run.error ?? '').replaceAll('|', '\\|').replaceAll('\n', ' ')
    return `| ${run.name} | ${run.checkType} | ${run.location} | ${result} | ${Math.round(run.responseTime)} ms | ${error} |`
  })
  return [
    `### ${title}: ${summaryLine(runs)}`,
    '',
    '| Check | Type | Location | Result | Response time | Error |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n')
}

/** Prints the end report of `reporter`: the GitHub summary goes to $GITHUB_STEP_SUMMARY when set. */
export function printReport(ctx: CommandContext, reporter: Reporter, runs: RunReport[], title: string): void {
  if (ctx.out.json) {
    ctx.out.result({ passed: runs.every((run) => run.passed), runs }, () => '')
    return
  }
  if (reporter === 'junit') ctx.out.result(null, () => junitReport(runs, title))
  else if (reporter === 'github') {
    const summary = githubSummary(runs, title)
    if (ctx.env.GITHUB_STEP_SUMMARY) appendFileSync(ctx.env.GITHUB_STEP_SUMMARY, summary)
    else ctx.out.result(null, () => summary)
  } else ctx.out.result(null, () => summaryLine(runs))
}

function xml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
}
