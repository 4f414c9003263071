import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server on loopback that answers each message `acceptAfterMs` after its data
 * arrived. `accepted` holds the messages it answered 250 for, recorded once the answer is
 * written (a real MTA takes responsibility for a message then); `hold` stops answering,
 * so a message that arrives or waits meanwhile is never accepted.
 */
export async function startSlowSmtpServer(acceptAfterMs: number) {
  const accepted: ParsedMail[] = [];
  let arrived = 0;
  let holding = false;
  const closed = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 1000,
    onClose(session) {
      closed.add(session.id);
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          arrived++;
          const held = holding;
          setTimeout(() => {
            // Never answered, nor counted, once its sender is gone.
            if (held || holding || closed.has(session.id)) return;
            callback();
            accepted.push(mail);
          }, acceptAfterMs);
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    accepted,
    /** Messages whose data arrived, answered or not. */
    arrived: () => arrived,
    hold: () => {
      holding = true;
    },
    resume: () => {
      holding = false;
    },
    /** How many accepted messages each address got. */
    perRecipient: () => {
      const counts: Record<string, number> = {};
      for (const mail of accepted) {
        const to = Array.isArray(mail.to) ? mail.to[0]?.text : mail.to?.text;
        counts[to ?? ''] = (counts[to ?? ''] ?? 0) + 1;
      }
      return counts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
