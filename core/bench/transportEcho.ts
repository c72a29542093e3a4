/**
 * An echo server on one of the server's real transports (openTransport: a ZeroMQ ROUTER, or the
 * stream transport for a stream+ endpoint), for transport_rtt.py: every message goes back to its
 * sender as it came. Prints `ECHO=<endpoint>` once bound; exits when stdin closes.
 *
 *   node --import tsx core/bench/transportEcho.ts stream+ipc:///tmp/echo.sock
 */
import { openTransport } from '../src/server/openTransport.ts';

const endpoint = process.argv[2] ?? 'stream+ipc';
const transport = await openTransport({ endpoint, maxMessageBytes: 1 << 20 });
const bound = await transport.start((peer, frames) => transport.send(peer, frames));
process.stdout.write(`ECHO=${bound}\n`);
process.stdin.on('end', () => void transport.close().then(() => process.exit(0)));
process.stdin.resume();
