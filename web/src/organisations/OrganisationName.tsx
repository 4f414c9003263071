import { Link } from '@tanstack/react-router';
import { OrganisationLogo } from '../ui/OrganisationLogo';

/** An organisation's name as a link to its page, after its logo (or its initials). */
export function OrganisationName({
  workspace,
  uuid,
  name,
  logo,
}: {
  workspace: string;
  uuid: string;
  name: string;
  logo: string;
}) {
  return (
    <span className="org-name">
      <OrganisationLogo name={name} logo={logo} size="small" />
      <Link
        to="/w/$workspace/organisations/$organisation"
        params={{ workspace, organisation: uuid }}
      >
        {name}
      </Link>
    </span>
  );
}
