// The demo checkout's page files beside its compiled backend (dist/node/examples/seller-checkout/public),
// which serves them from its own directory as it does under tsx.
import { cpSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '..')
const to = join(root, 'dist/node/examples/seller-checkout/public')
rmSync(to, { recursive: true, force: true })
cpSync(join(root, 'examples/seller-checkout/public'), to, { recursive: true })
