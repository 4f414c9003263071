import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { ago, dateTime } from '../ui/format';
import { Pager } from '../ui/Pager';
import { pageParam } from '../ui/search';
import { Empty, Loaded } from '../ui/states';
import { TableWrap } from '../ui/TableWrap';
import { PAGE_SIZE, useContactsPage } from './queries';

/** The people who identified themselves on the site, with their organisation. */
export function ContactsPage() {
  const { workspace } = useParams({ from: '/w/$workspace' });
  const search = useSearch({ from: '/w/$workspace/contacts' });
  const navigate = useNavigate({ from: '/w/$workspace/contacts' });
  const page = search.page ?? 1;
  const { contacts, organisations } = useContactsPage(workspace, page);

  return (
    <>
      <div className="page-header">
        <h1>Contacts</h1>
      </div>
      <Loaded query={contacts} what="contacts" retry>
        {(data) =>
          data.total === 0 ? (
            <Empty>
              <p>
                Nobody has identified themselves yet. When someone signs up or logs in on your site,
                tell Footfall who they are:
              </p>
              <pre className="snippet">
                <code>footfall('identify', 'jo@acme.com');</code>
              </pre>
            </Empty>
          ) : (
            <>
              <TableWrap label="Contacts">
                <table className="compact-on-phone">
                  <thead>
                    <tr>
                      <th scope="col">Email</th>
                      <th scope="col">Organisation</th>
                      <th scope="col" className="wide-only">
                        First seen
                      </th>
                      <th scope="col">Last seen</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.data.map((c) => (
                      <tr key={c.uuid}>
                        <td>
                          <a href={`mailto:${c.email}`}>{c.email}</a>
                        </td>
                        <td>
                          {c.organisation_uuid ? (
                            <Link
                              to="/w/$workspace/organisations/$organisation"
                              params={{ workspace, organisation: c.organisation_uuid }}
                            >
                              {organisations.data?.get(c.organisation_uuid) ?? 'Organisation'}
                            </Link>
                          ) : (
                            <span className="muted">Not identified</span>
                          )}
                        </td>
                        <td className="nowrap wide-only" title={dateTime(c.first_seen)}>
                          {ago(c.first_seen)}
                        </td>
                        <td className="nowrap" title={dateTime(c.last_seen)}>
                          {ago(c.last_seen)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <Pager
                page={page}
                size={PAGE_SIZE}
                total={data.total}
                noun="contact"
                onPage={(next) => void navigate({ search: { page: pageParam(next) } })}
              />
            </>
          )
        }
      </Loaded>
    </>
  );
}
