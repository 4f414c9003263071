import { Type } from '@sinclair/typebox';
import type { ReadRouting } from '../db/read-routing.js';
import type { Api, AppDeps } from '../http/api.js';
import { userOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { checkPageWindow, PageSchema, paginate } from '../http/pagination.js';
import { errorResponses, WorkspaceParams, Wrapped } from '../http/schemas.js';
import { requireWorkspace } from '../http/workspace.js';
import { organisationExists } from '../organisations/store.js';
import { presentContact } from './present.js';
import { Contact, ContactParams, ContactsQuery } from './schemas.js';
import { findContact, findContactPage } from './store.js';

/** The list reads from the replica when there is one (`reads`). */
export function contactRoutes(app: Api, deps: AppDeps, reads: ReadRouting): void {
  app.get(
    '/v1/workspaces/:workspaceUuid/contacts',
    {
      schema: {
        tags: ['Contacts'],
        summary: 'List the people who identified themselves, most recently seen first',
        params: WorkspaceParams,
        querystring: ContactsQuery,
        response: {
          200: PageSchema(Type.Ref(Contact)),
          ...errorResponses(401, 404, 422, 429),
        },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const query = request.query;
      checkPageWindow(query);
      const db = await reads.reader(userOf(request));
      if (
        query.organisation_uuid !== undefined &&
        !(await organisationExists(db, workspace.id, query.organisation_uuid))
      ) {
        throw notFound('Organisation not found.');
      }
      const { rows, total } = await findContactPage(
        db,
        {
          workspaceId: workspace.id,
          organisationId: query.organisation_uuid,
          domain: query.domain,
        },
        { offset: (query.page - 1) * query.size, limit: query.size },
      );
      return paginate(request, deps.config.publicUrl, query, total, rows.map(presentContact));
    },
  );

  app.put(
    '/v1/workspaces/:workspaceUuid/contacts/:contactUuid/reveal-email',
    {
      schema: {
        tags: ['Contacts'],
        summary: "A contact with its e-mail address (the hosted service's reveal call)",
        description:
          'Nothing is hidden in Footfall: a contact is a person who identified themselves ' +
          "on the workspace's own site, and every answer already carries the address. This " +
          'answers the contact as the list shows it, changes nothing and costs nothing, for ' +
          'clients written against the hosted service. No body.',
        params: ContactParams,
        response: { 200: Wrapped(Type.Ref(Contact)), ...errorResponses(400, 401, 404, 415, 429) },
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(deps, request, request.params.workspaceUuid);
      const contact = await findContact(deps.db, workspace.id, request.params.contactUuid);
      if (!contact) throw notFound('Contact not found.');
      return { success: true, data: presentContact(contact) };
    },
  );
}
