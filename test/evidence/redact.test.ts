// The masking function itself (SPEC §8): which names are secret, `redact` patterns with their flags, base64 wrapped
// in lines, secrets with escape sequences inside them, and secrets split across chunks of a streamed output.
import { describe, expect, it } from 'vitest'
import { createRedactor, isSecretName, maskVisible, redactDeep, secretValues } from '../../src/evidence/redact.js'
import { OutputCapture } from '../../src/runner/capture.js'
import { stripAnsi } from '../../src/runner/ansi.js'

const SECRET = 's3cr3t-V4lue/with+chars-77'

/** Whether any base64 run of `text` (line breaks removed, any alignment) decodes to something holding `secret`. */
function base64Leak(text: string, secret: string): boolean {
  const joined = text.replace(/\r?\n/g, '')
  for (const run of joined.match(/[A-Za-z0-9+/]{8,}/g) ?? []) {
    for (let shift = 0; shift < 4; shift++) if (Buffer.from(run.slice(shift), 'base64').includes(secret)) return true
  }
  return false
}

const wrap = (text: string, width: number, eol = '\n') => (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(eol)

describe('secret names', () => {
  it.each(['DB_PASS', 'MYSQL_PWD', 'GPG_PASSPHRASE', 'SIGNING_PASSPHRASE', 'AUTH_JWT', 'JWT', 'JWT_SIGNING', 'REDIS_PASS', 'PASS'])('%s is secret', (name) => {
    expect(isSecretName(name)).toBe(true)
  })

  // PWD and OLDPWD are the shell's working folders: masking them would mask every path in the output.
  // SPEC §8: a name that holds a secret word, wherever in a segment.
  it.each(['STRIPE_SECRETKEY', 'SSH_PRIVATEKEY', 'AUTHORIZATION', 'SESSIONID', 'AUTHTOKEN', 'GITHUB_TOKEN', 'OAUTH_CLIENT_SECRET', 'MY_COOKIEJAR'])(
    '%s is secret',
    (name) => {
      expect(isSecretName(name)).toBe(true)
    },
  )

  it.each([
    'PWD',
    'OLDPWD',
    'BYPASS_CACHE',
    'COMPASS_HOME',
    'PASSAGE',
    'GIT_AUTHOR_NAME',
    'GIT_COMMITTER_NAME',
    'AUTHOR',
    'SSH_AUTH_SOCK',
    'SESSIONNAME',
    'MONKEY',
  ])('%s is not secret', (name) => {
    expect(isSecretName(name)).toBe(false)
  })

  it('the working folder is never masked, a MySQL password is', () => {
    const redact = createRedactor(secretValues({ PWD: '/home/dev/project', OLDPWD: '/home/dev', MYSQL_PWD: 'hunter22' }))
    expect(redact('cd /home/dev/project && mysql -phunter22')).toBe('cd /home/dev/project && mysql -p***')
  })
})

describe('redact patterns keep their flags', () => {
  it('m: ^ and $ at every line', () => {
    const redact = createRedactor([], [/^password=.*$/m])
    expect(redact('user=dev\npassword=hunter2\nport=5432')).toBe('user=dev\n***\nport=5432')
  })

  it('i: the pattern ignores case, literal strings and other patterns do not', () => {
    const redact = createRedactor([], [/bearer [a-z0-9]+/i, 'Build-Host', /tok_[a-z]+/])
    expect(redact('Authorization: BEARER ABC123')).toBe('Authorization: ***')
    expect(redact('build-host Build-Host tok_abc TOK_ABC')).toBe('build-host *** *** TOK_ABC')
  })

  it('u: Unicode property escapes', () => {
    const redact = createRedactor([], [/\p{Lu}{2}-\d{4}/u])
    expect(redact('badge ÄB-1234 issued')).toBe('badge *** issued')
  })

  it('s: a dot matches a line break', () => {
    const redact = createRedactor([], [/BEGIN KEY.*END KEY/s])
    expect(redact('x BEGIN KEY\nabc\nEND KEY y')).toBe('x *** y')
  })

  it('back-references and named groups work in each pattern, however many there are', () => {
    const redact = createRedactor(['literal-secret'], [/(?<q>['"])tok-\w+\k<q>/, /(['"])pw-\w+\1/, /(?<q>`)key-\w+\k<q>/])
    expect(redact(`a 'tok-1' b "pw-2" c \`key-3\` d "tok-4' literal-secret`)).toBe(`a *** b *** c *** d "tok-4' ***`)
  })

  it('a global or sticky flag of the pattern does not change what is masked', () => {
    const sticky = /tok-\d+/y
    const redact = createRedactor([], [sticky, /pw-\d+/g])
    expect(redact('x tok-1 pw-2 tok-3')).toBe('x *** *** ***')
    expect(redact('x tok-1 pw-2 tok-3')).toBe('x *** *** ***')
  })
})

describe('base64 wrapped in lines', () => {
  it.each([
    ['76 columns, LF (base64 CLI)', 76, '\n'],
    ['76 columns, CRLF (MIME)', 76, '\r\n'],
    ['64 columns (PEM)', 64, '\n'],
  ])('%s: masked wherever the line break falls', (_name, width, eol) => {
    const redact = createRedactor([SECRET])
    for (let before = 0; before < 80; before++) {
      const encoded = wrap(Buffer.from(`${'p'.repeat(before)}${SECRET}\n`).toString('base64'), width, eol)
      expect(base64Leak(encoded, SECRET), `${before} bytes before`).toBe(true)
      expect(base64Leak(redact(encoded), SECRET), `${before} bytes before`).toBe(false)
    }
  })

  it('streamed: a line break between two chunks does not let it through', async () => {
    for (let before = 40; before < 62; before++) {
      const capture = new OutputCapture({ transform: createRedactor([SECRET]) })
      const encoded = wrap(Buffer.from(`${'p'.repeat(before)}${SECRET}`).toString('base64'), 76)
      const cut = encoded.indexOf('\n') + 1
      let live = ''
      capture.onText = (text) => (live += text)
      capture.write(Buffer.from(encoded.slice(0, cut)), 'stdout')
      capture.write(Buffer.from(`${encoded.slice(cut)}\n`), 'stdout')
      const record = await capture.finish()
      expect(base64Leak(record.text, SECRET), `${before} bytes before`).toBe(false)
      expect(base64Leak(live, SECRET), `${before} bytes before`).toBe(false)
    }
  })

  it('ordinary short lines are shown as they come, not held back', () => {
    const capture = new OutputCapture({ transform: createRedactor([SECRET]) })
    let live = ''
    capture.onText = (text) => (live += text)
    capture.write(Buffer.from('waiting\nready\n'), 'stdout')
    expect(live).toBe('waiting\nready\n')
  })
})

describe('escape sequences inside a secret', () => {
  it('what a terminal shows holds no secret; colours stay where no secret is', () => {
    const redact = createRedactor([SECRET])
    const split = `token=${SECRET.slice(0, 5)}\x1b[31m${SECRET.slice(5, 12)}\x1b[0m${SECRET.slice(12)} \x1b[32mok\x1b[0m`
    expect(stripAnsi(maskVisible(redact, split))).toBe('token=*** ok')
    expect(maskVisible(redact, `\x1b[32mok\x1b[0m ${SECRET}`)).toBe('\x1b[32mok\x1b[0m ***')
    // A bell or a NUL shows nothing either.
    expect(maskVisible(redact, `${SECRET.slice(0, 4)}\u0007${SECRET.slice(4, 8)}\u0000${SECRET.slice(8)}`)).toBe('***')
    // Nor does a run of them, however long.
    expect(maskVisible(redact, `${SECRET.slice(0, 6)}${'\u0000'.repeat(5000)}\u0001\u007f${SECRET.slice(6)}`)).toBe('***')
  })

  it('without a secret to mask, text passes as it is, control bytes and all', () => {
    const text = `${'\u0000'.repeat(1000)}\x1b[31mred\x1b[0m`
    expect(maskVisible(createRedactor([]), text)).toBe(text)
  })

  it('the live output of a check keeps no secret split by colour codes', async () => {
    const capture = new OutputCapture({ transform: createRedactor([SECRET]) })
    let live = ''
    capture.onText = (text) => (live += text)
    capture.write(Buffer.from(`${SECRET.slice(0, 9)}\x1b[1m\x1b[31m${SECRET.slice(9)}\x1b[0m\n`), 'stdout')
    const record = await capture.finish()
    expect(stripAnsi(live)).not.toContain(SECRET)
    expect(record.text).toBe('***\n')
  })
})

describe('redactDeep and hostile keys', () => {
  it('keeps a __proto__ key as an ordinary field of the copy (function-check metadata), masked like the rest', () => {
    const input = JSON.parse('{"metadata":{"__proto__":{"token":"s3cr3t-value"},"constructor":"x"}}') as Record<string, unknown>
    const out = redactDeep(input, createRedactor(['s3cr3t-value']))
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse('{"metadata":{"__proto__":{"token":"***"},"constructor":"x"}}'))
    expect(Object.getPrototypeOf((out as { metadata: object }).metadata)).toBe(Object.prototype)
  })
})

/** A redactor that has already seen more text than it searches through first: from then on, one RegExp of all. */
function past(redact: ReturnType<typeof createRedactor>) {
  redact(`${'.'.repeat(99)}\n`.repeat(50_000))
  return redact
}

describe('the forms are searched for first, then masked by one RegExp', () => {
  const secrets = [SECRET, `${SECRET}-longer`, 'db"pa\\ss/w0rd+31', 'p@ss word+%']
  const texts = [
    `token=${SECRET}-longer and ${SECRET}`,
    `{"token":${JSON.stringify(secrets[2])}} q=${encodeURIComponent(secrets[3] as string)}`,
    `x ${wrap(Buffer.from(`ab${SECRET}`).toString('base64'), 7, '\r\n')} y`,
    `${Buffer.from(SECRET).toString('base64url')} ${Buffer.from(`${secrets[1]}`).toString('base64')}`,
    'nothing secret here\n',
    '',
  ]

  it('masks every text as the RegExp of all the forms does, longest form first', () => {
    const fresh = createRedactor(secrets)
    const seasoned = past(createRedactor(secrets))
    for (const text of texts) {
      expect(fresh(text), text).toBe(seasoned(text))
      for (const secret of secrets) expect(fresh(text)).not.toContain(secret)
      expect(base64Leak(fresh(text), SECRET)).toBe(false)
    }
    expect(fresh(`token=${SECRET}-longer`)).toBe('token=***')
  })

  it('cuts a stream where the RegExp of all the forms would', () => {
    const fresh = createRedactor(secrets)
    const seasoned = past(createRedactor(secrets))
    for (const text of texts) {
      for (let cut = 0; cut <= text.length; cut++) expect(fresh.safeCut?.(text, cut), `${text} @${cut}`).toBe(seasoned.safeCut?.(text, cut))
    }
  })

  it('a pattern that matches the empty string does not stop the cut search', () => {
    const redact = createRedactor([SECRET], [/x*/u])
    expect(redact.safeCut?.(`😀 ab${SECRET}cd`, 8)).toBe(5)
  })
})
