// `verify init --agent <name>`: the stop hook merged into the agent's settings, other hooks kept, idempotent, and a
// file verify cannot read left untouched.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cli } from '../../../src/cli/main.js'
import type { CliIO } from '../../../src/cli/io.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A project with a verify config already (so init only installs the hook). */
function projectDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'verify-agent-init-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'demo', scripts: { test: 'vitest run' } }))
  writeFileSync(join(dir, 'verify.config.ts'), "export default { checks: { test: 'npm test' } }\n")
  return dir
}

async function init(dir: string, agent: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: { ...process.env }, cwd: dir, isTTY: false }
  const code = await cli(['init', '--agent', agent], io)
  return { code, stdout, stderr }
}

const read = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, any>
const put = (dir: string, file: string, content: string) => {
  mkdirSync(dirname(join(dir, file)), { recursive: true })
  writeFileSync(join(dir, file), content)
}

// Each agent's settings file with one hook of its own already there, and where verify's entry lands.
const CASES = [
  {
    agent: 'claude-code',
    file: '.claude/settings.json',
    before: {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard' }] }],
      },
    },
    ours: (s: any) => [...s.hooks.Stop, ...s.hooks.SubagentStop].filter((g: any) => g.hooks?.[0]?.command === 'npx verify hook claude-code'),
    kept: (s: any) => s.hooks.Stop[0].hooks[0].command === 'notify-send done' && s.hooks.PreToolUse.length === 1 && s.permissions.allow[0] === 'Bash(npm test)',
    expected: 2,
  },
  {
    agent: 'codex',
    file: '.codex/hooks.json',
    before: { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } },
    ours: (s: any) => s.hooks.Stop.filter((g: any) => g.hooks?.[0]?.command === 'npx verify hook codex'),
    kept: (s: any) => s.hooks.Stop[0].hooks[0].command === 'say done',
    expected: 1,
  },
  {
    agent: 'cursor',
    file: '.cursor/hooks.json',
    before: { version: 1, hooks: { afterFileEdit: [{ command: './format.sh' }] } },
    ours: (s: any) => s.hooks.stop.filter((h: any) => h.command === 'npx verify hook cursor'),
    kept: (s: any) => s.version === 1 && s.hooks.afterFileEdit[0].command === './format.sh',
    expected: 1,
  },
  {
    agent: 'gemini',
    file: '.gemini/settings.json',
    before: { theme: 'GitHub', hooks: { BeforeTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: 'audit' }] }] } },
    ours: (s: any) => s.hooks.AfterAgent.filter((g: any) => g.hooks?.[0]?.command === 'npx verify hook gemini' && g.hooks[0].timeout === 600_000),
    kept: (s: any) => s.theme === 'GitHub' && s.hooks.BeforeTool.length === 1,
    expected: 1,
  },
  {
    agent: 'copilot',
    file: '.github/hooks/verify.json',
    before: { version: 1, hooks: { sessionStart: [{ type: 'command', bash: 'echo hi' }] } },
    ours: (s: any) => s.hooks.agentStop.filter((h: any) => h.bash === 'npx verify hook copilot' && h.timeoutSec === 600),
    kept: (s: any) => s.hooks.sessionStart[0].bash === 'echo hi',
    expected: 1,
  },
]

describe('verify init --agent', () => {
  for (const c of CASES) {
    it(`${c.agent}: merges into ${c.file}, keeps the other hooks, and a second run changes nothing`, async () => {
      const dir = projectDir()
      put(dir, c.file, JSON.stringify(c.before, null, 2))
      const first = await init(dir, c.agent)
      expect(first.code, first.stderr).toBe(0)
      expect(first.stdout).toContain(`added \`npx verify hook ${c.agent}\` to ${c.file}`)
      const after = read(dir, c.file)
      expect(c.ours(after)).toHaveLength(c.expected)
      expect(c.kept(after)).toBe(true)

      const text = readFileSync(join(dir, c.file), 'utf8')
      const second = await init(dir, c.agent)
      expect(second.code).toBe(0)
      expect(second.stdout).toContain('nothing to change')
      expect(readFileSync(join(dir, c.file), 'utf8')).toBe(text)
    })

    it(`${c.agent}: creates ${c.file} when there is none`, async () => {
      const dir = projectDir()
      expect((await init(dir, c.agent)).code).toBe(0)
      expect(c.ours(read(dir, c.file))).toHaveLength(c.expected)
    })
  }

  it('refuses a malformed settings file with a clear error (exit 2) and leaves it byte for byte', async () => {
    for (const [content, message] of [
      ['{ "hooks": { "Stop": [ ', 'is not valid JSON'],
      ['[1, 2]', 'does not hold a JSON object'],
      ['{ "hooks": [] }', '"hooks" is not an object'],
      ['{ "hooks": { "Stop": {} } }', '"hooks.Stop" is not a list'],
    ] as const) {
      const dir = projectDir()
      put(dir, '.claude/settings.json', content)
      const { code, stderr } = await init(dir, 'claude-code')
      expect(code, content).toBe(2)
      expect(stderr, content).toContain(message)
      expect(stderr, content).not.toMatch(/^\s+at /m)
      expect(readFileSync(join(dir, '.claude/settings.json'), 'utf8')).toBe(content)
    }
  })

  it('reads settings written as JSON with comments, trailing commas or a BOM, and keeps the comments and the BOM', async () => {
    const dir = projectDir()
    const before = '\uFEFF{\n  // the theme a person chose\n  "theme": "GitHub",\n  "hooks": { "AfterAgent": [], },\n}\n'
    put(dir, '.gemini/settings.json', before)
    const { code, stderr } = await init(dir, 'gemini')
    expect(code, stderr).toBe(0)
    const after = readFileSync(join(dir, '.gemini/settings.json'), 'utf8')
    expect(after.startsWith('\uFEFF{\n  // the theme a person chose\n  "theme": "GitHub",')).toBe(true)
    expect(after).toContain('npx verify hook gemini')
    expect((await init(dir, 'gemini')).stdout).toMatch(/already runs `npx verify hook gemini`: nothing to change/)
  })

  it('without a config, settings it refuses leave the project as it was: no config written either', async () => {
    const dir = projectDir()
    rmSync(join(dir, 'verify.config.ts'))
    put(dir, '.codex/hooks.json', '{ "hooks": ')
    const { code, stderr } = await init(dir, 'codex')
    expect(code).toBe(2)
    expect(stderr).toContain('is not valid JSON')
    expect(existsSync(join(dir, 'verify.config.ts'))).toBe(false)
    expect(existsSync(join(dir, '.gitignore'))).toBe(false)
  })

  it('names the agents it knows when given another', async () => {
    const dir = projectDir()
    const { code, stderr } = await init(dir, 'vscode')
    expect(code).toBe(2)
    expect(stderr).toContain('claude-code, codex, cursor, gemini, copilot')
    expect(existsSync(join(dir, '.claude'))).toBe(false)
  })

  it('in a project without a config, writes one from package.json and installs the hook', async () => {
    const dir = projectDir()
    rmSync(join(dir, 'verify.config.ts'))
    const { code, stdout } = await init(dir, 'codex')
    expect(code).toBe(0)
    expect(stdout).toContain('wrote verify.config.ts')
    expect(existsSync(join(dir, 'verify.config.ts'))).toBe(true)
    expect(read(dir, '.codex/hooks.json').hooks.Stop).toHaveLength(1)
  })
})
