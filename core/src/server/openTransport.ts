/**
 * The transport an endpoint names: `stream+ipc://…` / `stream+tcp://…` a plain socket, anything else
 * a ZeroMQ ROUTER. Each is imported only when asked for, so a stream server never loads the zeromq addon.
 */
import type { Logger } from './logger.ts';
import { isStreamEndpoint } from './streamTransport.ts';
import type { Transport } from './transport.ts';

export async function openTransport(opts: { endpoint: string; maxMessageBytes: number; logger?: Logger }): Promise<Transport> {
  if (isStreamEndpoint(opts.endpoint)) {
    const { StreamTransport } = await import('./streamTransport.ts');
    return new StreamTransport(opts);
  }
  const { ZmqRouterTransport } = await import('./zmqRouterTransport.ts');
  return new ZmqRouterTransport(opts);
}
