import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { memberNamed } from '../accounts/store.js';
import type { Database } from '../db/schema.js';
import { type Allowance, spend } from '../http/allowances.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { notFound, unprocessable } from '../http/errors.js';
import { decrypt } from '../http/keys.js';
import { mailBudget } from '../http/mail-budget.js';
import { checkPageWindow, PageQuery, PageSchema, paginate } from '../http/pagination.js';
import { errorResponses, Message, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { enqueueTest } from './outbox.js';
import { presentDelivery, presentRule } from './present.js';
import { channelValues, checkFilter, isTimezone } from './rules.js';
import {
  NotificationDelivery,
  NotificationRule,
  RuleInput,
  RuleParams,
  RulePatch,
  type Trigger,
} from './schemas.js';
import {
  deleteRule,
  findDelivery,
  findMyDigest,
  findRule,
  insertRule,
  listRules,
  type RuleRow,
  ruleDeliveries,
  saveMyDigest,
  updateRule,
} from './store.js';

const tags = ['Notifications'];
// A test posts to a URL or mails addresses an admin typed: a few a minute serve someone
// setting a rule up, and keep the server from being used to flood a target.
const TEST_SENDS_PER_MINUTE = 10;
const testSends = (workspaceId: string): Allowance => ({
  scope: 'notification-test:workspace',
  subjectId: workspaceId,
  amount: 1,
  limit: TEST_SENDS_PER_MINUTE,
  windowSeconds: 60,
  rule: `A workspace can send at most ${TEST_SENDS_PER_MINUTE} test notifications a minute`,
  unit: 'test notifications',
});
const RULES = '/v1/workspaces/:workspaceUuid/notifications';
const RULE = `${RULES}/:ruleUuid`;

/**
 * Whether a rule's segment is the workspace's, given by app.ts: segments/ tells
 * notifications/ who entered a segment, so notifications/ does not import it back.
 */
export interface NotificationRuleChecks {
  segmentExists(db: Kysely<Database>, workspaceId: string, segmentId: string): Promise<boolean>;
}

export function notificationRoutes(app: Api, deps: AppDeps, checks: NotificationRuleChecks): void {
  const present = (row: RuleRow) =>
    presentRule(
      row,
      row.slack_url_encrypted ? decrypt(deps.keys.encryption, row.slack_url_encrypted) : null,
    );
  const channelContext = (current?: RuleRow) => ({
    key: deps.keys.encryption,
    allowPrivate: deps.config.allowPrivateWebhooks,
    resolve: deps.resolve,
    current,
  });
  const requireRule = async (
    request: FastifyRequest,
    params: { workspaceUuid: string; ruleUuid: string },
  ) => {
    const workspace = await requireWorkspace(deps, request, params.workspaceUuid);
    const rule = await findRule(deps.db, workspace.id, params.ruleUuid);
    if (!rule) throw notFound('Notification rule not found.');
    return { workspaceId: workspace.id, rule };
  };
  const checkSegment = async (workspaceId: string, segmentId: string | null) => {
    if (segmentId && !(await checks.segmentExists(deps.db, workspaceId, segmentId))) {
      throw unprocessable({
        'filter.segment_uuid': ['No segment of this workspace has this uuid.'],
      });
    }
  };
  /** filter.owner: a member (uuid or `me`, the caller) stored as the uuid; null for none. */
  const ownerFilter = async (
    request: FastifyRequest,
    workspaceId: string,
    owner: string | null | undefined,
  ) =>
    owner === undefined || owner === null
      ? owner
      : memberNamed(deps.db, workspaceId, userOf(request), owner, 'filter.owner');
  const checkTimezone = (zone: string) => {
    if (!isTimezone(zone)) {
      throw unprocessable({ timezone: ['The timezone field must be an IANA time zone.'] });
    }
  };
  const checkName = (name: string) => {
    const trimmed = name.trim();
    if (!trimmed) throw unprocessable({ name: ['The name field must not be empty.'] });
    return trimmed;
  };

  app.get(
    RULES,
    {
      schema: {
        tags,
        summary: "List the workspace's notification rules",
        params: WorkspaceParams,
        response: { 200: Wrapped(Type.Array(NotificationRule)), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      return { success: true, data: (await listRules(deps.db, workspace.id)).map(present) };
    },
  );

  app.post(
    RULES,
    {
      schema: {
        tags,
        summary: 'Create a notification rule (alerts and digests, contract §15)',
        params: WorkspaceParams,
        body: RuleInput,
        response: {
          201: Wrapped(NotificationRule),
          ...errorResponses(400, 401, 403, 404, 415, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const { body } = request;
      const name = checkName(body.name);
      const segmentId = body.filter?.segment_uuid ?? null;
      const urlContains = body.filter?.url_contains?.trim() || null;
      checkFilter(body.trigger, urlContains);
      const timezone = body.timezone ?? 'UTC';
      checkTimezone(timezone);
      await checkSegment(workspace.id, segmentId);
      const ownerId = await ownerFilter(request, workspace.id, body.filter?.owner);
      const channel = await channelValues(body.channel, channelContext());
      const row = await insertRule(deps.db, workspace.id, {
        name,
        enabled: body.enabled ?? true,
        trigger: body.trigger,
        segment_id: segmentId,
        url_contains: urlContains,
        owner_id: ownerId ?? null,
        timezone,
        created_by: userOf(request),
        email_unsubscribed: [],
        ...channel,
      });
      reply.status(201);
      return { success: true, data: present(row) };
    },
  );

  app.get(
    RULE,
    {
      schema: {
        tags,
        summary: 'Show a notification rule',
        params: RuleParams,
        response: { 200: Wrapped(NotificationRule), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const { rule } = await requireRule(request, request.params);
      return { success: true, data: present(rule) };
    },
  );

  app.patch(
    RULE,
    {
      schema: {
        tags,
        summary:
          'Change a notification rule; fields left out are kept, and a channel of the same type keeps its secret when it is left out',
        params: RuleParams,
        body: RulePatch,
        response: {
          200: Wrapped(NotificationRule),
          ...errorResponses(400, 401, 403, 404, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const { workspaceId, rule } = await requireRule(request, request.params);
      const { body } = request;
      const trigger = (body.trigger ?? rule.trigger) as Trigger;
      const segmentId =
        body.filter && 'segment_uuid' in body.filter
          ? (body.filter.segment_uuid ?? null)
          : rule.segment_id;
      const urlContains =
        body.filter && 'url_contains' in body.filter
          ? body.filter.url_contains?.trim() || null
          : rule.url_contains;
      checkFilter(trigger, urlContains);
      if (body.timezone !== undefined) checkTimezone(body.timezone);
      if (segmentId !== rule.segment_id) await checkSegment(workspaceId, segmentId);
      const ownerId =
        body.filter && 'owner' in body.filter
          ? await ownerFilter(request, workspaceId, body.filter.owner)
          : undefined;
      const channel = body.channel && (await channelValues(body.channel, channelContext(rule)));
      const row = await updateRule(deps.db, workspaceId, rule.id, {
        ...(ownerId !== undefined && { owner_id: ownerId }),
        ...(body.name !== undefined && { name: checkName(body.name) }),
        ...(body.enabled !== undefined && { enabled: body.enabled }),
        ...(body.timezone !== undefined && { timezone: body.timezone }),
        trigger,
        segment_id: segmentId,
        url_contains: urlContains,
        ...channel,
      });
      if (!row) throw notFound('Notification rule not found.');
      return { success: true, data: present(row) };
    },
  );

  app.delete(
    RULE,
    {
      schema: {
        tags,
        summary: 'Delete a notification rule with its delivery log',
        params: RuleParams,
        response: { 200: Message, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { workspaceId, rule } = await requireRule(request, request.params);
      if (!(await deleteRule(deps.db, workspaceId, rule.id))) {
        throw notFound('Notification rule not found.');
      }
      return { success: true, message: 'Notification rule deleted.' };
    },
  );

  app.post(
    `${RULE}/test`,
    {
      schema: {
        tags,
        summary:
          'Send a sample alert at once (through the outbox, marked as a test, about a sample organisation)',
        description: `At most ${TEST_SENDS_PER_MINUTE} test sends a minute per workspace, whatever the channel. An e-mail rule's test is also one e-mail per address of the mail budget (MAIL_PER_USER_PER_MINUTE, MAIL_PER_WORKSPACE_PER_MINUTE). Beyond either, 429 with Retry-After, and nothing is queued.`,
        params: RuleParams,
        response: {
          202: Wrapped(NotificationDelivery),
          ...errorResponses(400, 401, 403, 404, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const { workspaceId, rule } = await requireRule(request, request.params);
      await spend(deps.db, [
        testSends(workspaceId),
        ...(rule.channel_type === 'email'
          ? mailBudget(deps.config, {
              userId: userOf(request),
              workspaceId,
              emails: Math.max(1, rule.email_to.length),
            })
          : []),
      ]);
      const { rows } = await enqueueTest(workspaceId, rule.id, rule.trigger).execute(deps.db);
      const delivery = rows[0] && (await findDelivery(deps.db, workspaceId, rows[0].id));
      if (!delivery) throw notFound('Notification rule not found.');
      reply.status(202);
      return { success: true, data: presentDelivery(delivery) };
    },
  );

  app.get(
    `${RULE}/deliveries`,
    {
      schema: {
        tags,
        summary: "The rule's deliveries, newest first, with their state",
        params: RuleParams,
        querystring: PageQuery,
        response: {
          200: PageSchema(NotificationDelivery),
          ...errorResponses(401, 404, 422, 429),
        },
      },
    },
    async (request) => {
      checkPageWindow(request.query);
      const { page, size } = request.query;
      const { workspaceId, rule } = await requireRule(request, request.params);
      const { total, rows } = await ruleDeliveries(deps.db, workspaceId, rule.id, {
        offset: (page - 1) * size,
        limit: size,
      });
      return paginate(
        request,
        deps.config.publicUrl,
        request.query,
        total,
        rows.map(presentDelivery),
      );
    },
  );

  const MyDigest = Type.Object(
    {
      enabled: Type.Boolean(),
      timezone: Type.String({ description: 'the 07:00 it is sent at is in this zone' }),
      rule_uuid: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
    },
    { title: 'MyDigest' },
  );

  app.get(
    '/v1/workspaces/:workspaceUuid/my-digest',
    {
      schema: {
        tags,
        summary: 'The caller\'s own "My accounts" daily digest (contract §17)',
        params: WorkspaceParams,
        response: { 200: Wrapped(MyDigest), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const rule = await findMyDigest(deps.db, workspace.id, userOf(request));
      return { success: true, data: presentMyDigest(rule) };
    },
  );

  app.put(
    '/v1/workspaces/:workspaceUuid/my-digest',
    {
      schema: {
        tags,
        summary:
          'Switch the caller\'s "My accounts" digest on or off (any member): each morning, the organisations they own that visited, highest score first, with what they read',
        params: WorkspaceParams,
        body: Type.Object({
          enabled: Type.Boolean(),
          timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        }),
        response: { 200: Wrapped(MyDigest), ...errorResponses(400, 401, 404, 415, 422, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const userId = userOf(request);
      const { enabled, timezone } = request.body;
      if (timezone !== undefined) checkTimezone(timezone);
      const rule = await saveMyDigest(deps.db, workspace.id, userId, { enabled, timezone });
      return { success: true, data: presentMyDigest(rule) };
    },
  );
}

function presentMyDigest(rule: RuleRow | undefined) {
  return {
    enabled: rule?.enabled ?? false,
    timezone: rule?.timezone ?? 'UTC',
    rule_uuid: rule?.id ?? null,
  };
}
