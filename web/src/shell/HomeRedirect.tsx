import { Navigate } from '@tanstack/react-router';
import { ApiFailure } from '../api/client';
import { useMe, useWorkspaces } from '../api/queries';
import { ErrorState, Loading } from '../ui/states';

const LAST = 'footfall.workspace';

/** `/`: the last workspace used, else the first, else the welcome page; sign-in if needed. */
export function HomeRedirect() {
  const me = useMe();
  const workspaces = useWorkspaces();
  if (me.error instanceof ApiFailure && me.error.status === 401) {
    return <Navigate to="/sign-in" search={{ next: undefined }} replace />;
  }
  if (me.isError) return <ErrorState what="your account" error={me.error} />;
  if (me.isPending || workspaces.isPending) return <Loading what="your workspaces" />;
  if (workspaces.isError) return <ErrorState what="your workspaces" error={workspaces.error} />;
  const last = localStorage.getItem(LAST);
  const target = workspaces.data.find((w) => w.uuid === last) ?? workspaces.data[0];
  if (!target) return <Navigate to="/welcome" replace />;
  return <Navigate to="/w/$workspace" params={{ workspace: target.uuid }} replace />;
}

export function rememberWorkspace(uuid: string): void {
  localStorage.setItem(LAST, uuid);
}
