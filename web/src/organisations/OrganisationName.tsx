import { Link } from '@tanstack/react-router';
import { useState } from 'react';

/** An organisation's name as a link to its page, with its logo when the directory has one. */
export function OrganisationName({
  workspace,
  uuid,
  name,
  logo,
}: {
  workspace: string;
  uuid: string;
  name: string;
  logo?: string;
}) {
  const [broken, setBroken] = useState(false);
  return (
    <span className="org-name">
      {logo && !broken ? (
        <img src={logo} alt="" loading="lazy" onError={() => setBroken(true)} />
      ) : (
        <span className="initial" aria-hidden="true">
          {name.slice(0, 1).toUpperCase()}
        </span>
      )}
      <Link
        to="/w/$workspace/organisations/$organisation"
        params={{ workspace, organisation: uuid }}
      >
        {name}
      </Link>
    </span>
  );
}
