/**
 * Query keys, each written once here, so a change can refresh what it touches. Everything
 * of one workspace sits under `workspace(uuid)`: invalidating that refreshes every page of it.
 * Everything of the signed-in person sits under `me`.
 */
const inWorkspace = (uuid: string, ...rest: unknown[]) => ['workspace', uuid, ...rest] as const;

export const keys = {
  me: ['me'] as const,
  tokens: ['me', 'tokens'] as const,
  webhook: ['me', 'webhooks'] as const,
  webhookDeliveries: (status: string) => ['me', 'webhook-deliveries', status] as const,
  server: ['server'] as const,
  setupLink: (secret: string) => ['setup-link', secret] as const,
  resetLink: (secret: string) => ['reset-link', secret] as const,
  invite: (secret: string) => ['invite', secret] as const,
  workspaces: ['workspaces'] as const,
  workspace: (uuid: string) => ['workspace', uuid] as const,

  stats: (ws: string, from: string, to: string) => inWorkspace(ws, 'stats', from, to),
  installation: (ws: string) => inWorkspace(ws, 'installation'),
  organisations: (ws: string, filters: object, page: number) =>
    inWorkspace(ws, 'organisations', filters, page),
  organisationNames: (ws: string, uuids: string[]) => inWorkspace(ws, 'organisation-names', uuids),
  organisation: (ws: string, uuid: string) => inWorkspace(ws, 'organisation', uuid),
  organisationSessions: (ws: string, uuid: string, page: number) =>
    inWorkspace(ws, 'organisation-sessions', uuid, page),
  organisationContacts: (ws: string, organisation: string) =>
    inWorkspace(ws, 'contacts', { organisation }),
  contacts: (ws: string, page: number) => inWorkspace(ws, 'contacts', page),
  sessions: (ws: string, filters: object, page: number) =>
    inWorkspace(ws, 'sessions', filters, page),
  segments: (ws: string) => inWorkspace(ws, 'segments'),
  segment: (ws: string, uuid: string) => inWorkspace(ws, 'segment', uuid),
  segmentSize: (ws: string, uuid: string) => inWorkspace(ws, 'segment-size', uuid),
  segmentPreview: (ws: string, filters: unknown) => inWorkspace(ws, 'segment-preview', filters),
  customFields: (ws: string) => inWorkspace(ws, 'custom-fields'),
  users: (ws: string) => inWorkspace(ws, 'users'),
  trackerFeatures: (ws: string) => inWorkspace(ws, 'tracker-features'),
  privacy: (ws: string) => inWorkspace(ws, 'privacy'),
  filters: (ws: string) => inWorkspace(ws, 'filters'),
  notifications: (ws: string) => inWorkspace(ws, 'notifications'),
  notificationDeliveries: (ws: string, rule: string) =>
    inWorkspace(ws, 'notification-deliveries', rule),
  myDigest: (ws: string) => inWorkspace(ws, 'my-digest'),
  scoring: (ws: string) => inWorkspace(ws, 'scoring'),
  scoringPreview: (ws: string, scoring: unknown) => inWorkspace(ws, 'scoring-preview', scoring),
  excludedDomains: (ws: string) => inWorkspace(ws, 'excluded-domains'),
  integrations: (ws: string) => inWorkspace(ws, 'integrations'),
  zapierHooks: (ws: string) => inWorkspace(ws, 'zapier-hooks'),
};
