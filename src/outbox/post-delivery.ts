import { postChecked, type Sent } from '../http/outbound/post.js';
import { deadline } from './delivery-loop.js';
import type { SubscriberDeps } from './events.js';

/**
 * One attempt of an HTTP delivery (webhooks, Zapier hooks): a JSON `body` POSTed through
 * the address guard (ALLOW_PRIVATE_WEBHOOKS lifts it) within WEBHOOK_TIMEOUT_SECONDS, cut
 * short when `stopping` aborts.
 */
export async function postDelivery(
  deps: Pick<SubscriberDeps, 'config' | 'resolve'>,
  url: URL,
  body: string,
  headers: Record<string, string>,
  stopping: AbortSignal,
): Promise<Sent> {
  const attempt = deadline(stopping, deps.config.webhookTimeoutSeconds);
  try {
    return await postChecked(
      url,
      body,
      { 'content-type': 'application/json', ...headers },
      {
        allowPrivate: deps.config.allowPrivateWebhooks,
        resolve: deps.resolve,
        signal: attempt.signal,
      },
    );
  } finally {
    attempt.clear();
  }
}
