import type { Config } from '../config.js';
import type { Allowance } from './allowances.js';

/** Who makes the server send how many e-mails, in which workspace. */
export interface MailUse {
  userId: string;
  workspaceId: string;
  emails: number;
}

/**
 * The mail budget (contract §12): e-mails a person's action sends (invites, test sends) count
 * against that user and against the workspace, each in a rolling minute. Alerts and digests,
 * which visitors and the clock cause, are not a person's action and are not counted. Hand
 * these to `spend` before sending or queuing anything.
 */
export function mailBudget(
  config: Pick<Config, 'mailPerUserPerMinute' | 'mailPerWorkspacePerMinute'>,
  use: MailUse,
): Allowance[] {
  const common = { amount: use.emails, windowSeconds: 60, unit: 'e-mails' };
  return [
    {
      ...common,
      scope: 'mail:user',
      subjectId: use.userId,
      limit: config.mailPerUserPerMinute,
      rule: `You can have Footfall send at most ${config.mailPerUserPerMinute} e-mails a minute (invites and test sends)`,
    },
    {
      ...common,
      scope: 'mail:workspace',
      subjectId: use.workspaceId,
      limit: config.mailPerWorkspacePerMinute,
      rule: `This workspace can send at most ${config.mailPerWorkspacePerMinute} e-mails a minute (invites and test sends of all its members)`,
    },
  ];
}
