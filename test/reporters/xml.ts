// A strict, tiny XML 1.0 parser for the tests: it throws on anything that is not well-formed (and on
// constructs the junit reporter never emits, such as comments or CDATA), so a passing parse means valid XML.

export interface XmlElement {
  name: string
  attributes: Record<string, string>
  children: (XmlElement | string)[]
}

const LEGAL = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u
const NAME = /[A-Za-z_:][\w.:-]*/y
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decode(raw: string, where: number): string {
  return raw.replace(/&([^;]*);?/g, (match, body: string) => {
    if (!match.endsWith(';')) throw new Error(`bare & at ${where}`)
    let char: string | undefined = ENTITIES[body]
    const numeric = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(body)
    if (numeric) char = String.fromCodePoint(numeric[1] ? parseInt(numeric[1], 16) : Number(numeric[2]))
    if (char === undefined || !LEGAL.test(char)) throw new Error(`bad reference &${body}; at ${where}`)
    return char
  })
}

export function parseXml(doc: string): XmlElement {
  if (!LEGAL.test(doc)) throw new Error('the document holds characters XML 1.0 does not allow')
  let at = 0
  const fail = (why: string): never => {
    throw new Error(`${why} at ${at}: ${JSON.stringify(doc.slice(at, at + 40))}`)
  }
  const skipSpace = () => {
    while (at < doc.length && ' \t\n\r'.includes(doc[at] as string)) at++
  }
  const name = (): string => {
    NAME.lastIndex = at
    const m = NAME.exec(doc)
    if (!m) return fail('expected a name')
    at += m[0].length
    return m[0]
  }
  const prolog = '<?xml version="1.0" encoding="UTF-8"?>'
  if (doc.startsWith(prolog)) at = prolog.length
  skipSpace()

  const element = (): XmlElement => {
    if (doc[at] !== '<') fail('expected <')
    at++
    const el: XmlElement = { name: name(), attributes: {}, children: [] }
    for (;;) {
      const before = at
      skipSpace()
      if (doc.startsWith('/>', at)) {
        at += 2
        return el
      }
      if (doc[at] === '>') {
        at++
        break
      }
      if (at === before) fail('expected space before an attribute')
      const key = name()
      skipSpace()
      if (doc[at] !== '=') fail('expected =')
      at++
      skipSpace()
      const quote = doc[at]
      if (quote !== '"' && quote !== "'") fail('expected a quoted value')
      const end = doc.indexOf(quote as string, at + 1)
      if (end < 0) fail('unterminated attribute')
      const raw = doc.slice(at + 1, end)
      if (raw.includes('<')) fail('< in an attribute value')
      // Literal line breaks and tabs would be normalised to spaces by any parser: they must be references.
      if (/[\t\n\r]/.test(raw)) fail('a literal tab or line break in an attribute value')
      if (key in el.attributes) fail(`duplicate attribute ${key}`)
      el.attributes[key] = decode(raw, at)
      at = end + 1
    }
    for (;;) {
      const next = doc.indexOf('<', at)
      if (next < 0) fail('unclosed element')
      const raw = doc.slice(at, next)
      if (raw.includes(']]>')) fail(']]> in text')
      if (raw) el.children.push(decode(raw, at))
      at = next
      if (doc.startsWith('</', at)) {
        at += 2
        if (name() !== el.name) fail(`mismatched end tag for ${el.name}`)
        skipSpace()
        if (doc[at] !== '>') fail('expected >')
        at++
        return el
      }
      if (doc.startsWith('<!', at) || doc.startsWith('<?', at)) fail('comments, CDATA and processing instructions are not expected')
      el.children.push(element())
    }
  }
  const root = element()
  skipSpace()
  if (at !== doc.length) fail('content after the root element')
  return root
}

export function childElements(el: XmlElement, name?: string): XmlElement[] {
  return el.children.filter((c): c is XmlElement => typeof c !== 'string' && (name === undefined || c.name === name))
}

export function textOf(el: XmlElement): string {
  return el.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('')
}
