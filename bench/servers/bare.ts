/**
 * The baseline every API figure is divided by: a bare Fastify 5 hello-world, no plugins, no logger, in a
 * process of its own like the service's, started in the same run so both meet the same machine load.
 */
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.get('/', async () => ({ hello: 'world' }))
const url = await app.listen({ port: 0, host: '127.0.0.1' })
process.send?.({ ready: true, url })
process.on('disconnect', () => {
  void app.close().then(() => process.exit(0))
})
