#!/usr/bin/env node
// The bin's former path (package.json names bin/verify.cjs): links made to it before, such as those npx keeps in its
// cache for a project's own bin, still run verify.
import { createRequire } from 'node:module'

createRequire(import.meta.url)('./verify.cjs')
