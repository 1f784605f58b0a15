// zod compiles each object schema into a function (`new Function`) the first time it parses with it: worth it in a
// process that parses thousands of objects, a loss in one that parses a config and an evidence file once (the compile
// costs more than the parse it speeds up). The same checks run either way; only how they run differs. Imported by the
// programs verify starts (the CLI's commands, a function check's process), never by the library, whose zod settings
// belong to the process that imports it.
import { z } from 'zod'

z.config({ jitless: true })
