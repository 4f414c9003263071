import { useParams } from '@tanstack/react-router';
import { Account } from './Account';
import { CustomFields } from './CustomFields';
import { ExcludedDomains } from './ExcludedDomains';
import { Integrations } from './Integrations';
import { Notifications } from './Notifications';
import { LeadScoring } from './scoring/LeadScoring';
import { Team } from './Team';
import { Tokens } from './Tokens';
import { Tracking } from './Tracking';
import { Webhooks } from './Webhooks';
import './settings.css';

const SECTIONS = [
  ['tracking', 'Tracking'],
  ['team', 'Team'],
  ['account', 'Account'],
  ['api-tokens', 'API tokens'],
  ['webhooks', 'Webhooks'],
  ['integrations', 'Integrations'],
  ['notifications', 'Notifications'],
  ['lead-scoring', 'Lead scoring'],
  ['excluded-domains', 'Excluded domains'],
  ['custom-fields', 'Custom fields'],
] as const;

/**
 * Everything that is set up once: the script, people, your password and tokens, outbound
 * messages and CRMs, how leads are scored and which are hidden, fields.
 */
export function SettingsPage() {
  const { workspace } = useParams({ from: '/w/$workspace' });
  return (
    <>
      <div className="page-header">
        <h1>Settings</h1>
      </div>
      <div className="settings-layout">
        <nav className="settings-toc" aria-label="Settings sections">
          <ul>
            {SECTIONS.map(([id, label]) => (
              <li key={id}>
                <a href={`#${id}`}>{label}</a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="settings-sections">
          <Tracking workspace={workspace} />
          <Team workspace={workspace} />
          <Account />
          <Tokens />
          <Webhooks />
          <Integrations workspace={workspace} />
          <Notifications workspace={workspace} />
          <LeadScoring workspace={workspace} />
          <ExcludedDomains workspace={workspace} />
          <CustomFields workspace={workspace} />
        </div>
      </div>
    </>
  );
}
