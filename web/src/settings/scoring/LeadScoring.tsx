import { useMemo } from 'react';
import { useIsAdmin } from '../../api/queries';
import { useBuilderFieldsQuery } from '../../segments/queries';
import { ErrorState, Loaded, Loading } from '../../ui/states';
import { useScoring } from './queries';
import { ScoringForm } from './ScoringForm';
import './scoring.css';

/** Rules the score cannot name: the score itself. */
const NOT_IN_RULES = new Set(['score']);

/**
 * Settings → Lead scoring: the rules and key pages that make each organisation's score,
 * with a live preview; admins change them, members read them.
 */
export function LeadScoring({ workspace }: { workspace: string }) {
  const scoring = useScoring(workspace);
  const fields = useBuilderFieldsQuery(workspace);
  const admin = useIsAdmin(workspace);
  const ruleFields = useMemo(
    () => fields.fields.filter((field) => !NOT_IN_RULES.has(field.name)),
    [fields.fields],
  );
  return (
    <section className="card" id="lead-scoring" aria-labelledby="lead-scoring-heading">
      <h2 id="lead-scoring-heading">Lead scoring</h2>
      <p className="muted small">
        Each organisation scores 0 to 100: the points of the rules it matches, plus those of the key
        pages it viewed in the last 30 days. Scores follow a change within a minute.
      </p>
      {admin === false ? (
        <p className="status-warn small">
          Only admins can change lead scoring: you see the rules this workspace scores with.
        </p>
      ) : null}
      <Loaded query={scoring} what="lead scoring" retry>
        {(data) =>
          fields.isPending ? (
            <Loading what="the fields rules can use" />
          ) : fields.error ? (
            <ErrorState what="the fields rules can use" error={fields.error} />
          ) : (
            <>
              {data.defaults ? (
                <p className="small">
                  This workspace scores with the default rules until an admin saves its own.
                </p>
              ) : null}
              <ScoringForm
                workspace={workspace}
                saved={data}
                fields={ruleFields}
                editable={admin === true}
              />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
