import { spawn } from 'node:child_process'
import { startUrlTarget } from './url-target.ts'
const t = await startUrlTarget()
const run = (flags: string[]) => new Promise<string>((done) => {
  const c = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...flags, 'bench/spread-floor.ts', '--origin', t.origin, '--checks', '200', '--window-ms', '60000', '--warmup-ms', '30000'])
  let out = ''
  c.stdout.on('data', (d) => { out += d })
  c.on('exit', () => done(`${flags.join(' ') || '(none)'}: ${out.trim()}`))
})
const flagsets = JSON.parse(process.argv[2] ?? '[[]]') as string[][]
for (const r of await Promise.all(flagsets.map(run))) console.log(r)
t.stop()
