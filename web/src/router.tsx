import type { QueryClient } from '@tanstack/react-query';
import {
  createRootRouteWithContext,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Outlet,
} from '@tanstack/react-router';
import { SignInPage } from './auth/SignInPage';
import type { OrganisationsSearch } from './organisations/queries';
import { sortSearch } from './organisations/sort';
import type { SessionsSearch } from './sessions/queries';
import { AppShell } from './shell/AppShell';
import { HomeRedirect } from './shell/HomeRedirect';
import { NotFoundPage } from './shell/NotFoundPage';
import { dateRangeSearch, optionalString, pageNumber } from './ui/search';
import { statusSearch } from './ui/status';

export interface RouterContext {
  queryClient: QueryClient;
}

const root = createRootRouteWithContext<RouterContext>()({
  component: Outlet,
  notFoundComponent: NotFoundPage,
});

// Signed-out pages: sign-in and the one-time links the server hands out.
const signIn = createRoute({
  getParentRoute: () => root,
  path: '/sign-in',
  validateSearch: (search: Record<string, unknown>) => ({ next: optionalString(search.next) }),
  component: SignInPage,
});
const forgot = createRoute({
  getParentRoute: () => root,
  path: '/forgot',
  component: lazyRouteComponent(() => import('./auth/ForgotPage'), 'ForgotPage'),
});
const setup = createRoute({
  getParentRoute: () => root,
  path: '/setup/$secret',
  component: lazyRouteComponent(() => import('./auth/SetupPage'), 'SetupPage'),
});
const reset = createRoute({
  getParentRoute: () => root,
  path: '/reset/$secret',
  component: lazyRouteComponent(() => import('./auth/ResetPage'), 'ResetPage'),
});
const invite = createRoute({
  getParentRoute: () => root,
  path: '/invite/$secret',
  component: lazyRouteComponent(() => import('./auth/InvitePage'), 'InvitePage'),
});

const home = createRoute({ getParentRoute: () => root, path: '/', component: HomeRedirect });
const welcome = createRoute({
  getParentRoute: () => root,
  path: '/welcome',
  component: lazyRouteComponent(() => import('./welcome/WelcomePage'), 'WelcomePage'),
});

// Everything about one workspace lives under /w/<uuid>/…, so links can be shared.
export const workspace = createRoute({
  getParentRoute: () => root,
  path: '/w/$workspace',
  component: AppShell,
});
const overview = createRoute({
  getParentRoute: () => workspace,
  path: '/',
  validateSearch: dateRangeSearch,
  component: lazyRouteComponent(() => import('./overview/OverviewPage'), 'OverviewPage'),
});
const organisations = createRoute({
  getParentRoute: () => workspace,
  path: '/organisations',
  validateSearch: (search: Record<string, unknown>): OrganisationsSearch => ({
    ...dateRangeSearch(search),
    q: optionalString(search.q),
    segment: optionalString(search.segment),
    tag: optionalString(search.tag),
    filters: optionalString(search.filters),
    sort: sortSearch(search.sort),
    owner: optionalString(search.owner),
    status: statusSearch(search.status),
    page: pageNumber(search.page),
  }),
  component: lazyRouteComponent(
    () => import('./organisations/OrganisationsPage'),
    'OrganisationsPage',
  ),
});
const organisation = createRoute({
  getParentRoute: () => workspace,
  path: '/organisations/$organisation',
  component: lazyRouteComponent(
    () => import('./organisation/OrganisationPage'),
    'OrganisationPage',
  ),
});
const sessions = createRoute({
  getParentRoute: () => workspace,
  path: '/sessions',
  validateSearch: (search: Record<string, unknown>): SessionsSearch => ({
    ...dateRangeSearch(search),
    url: optionalString(search.url),
    referrer: optionalString(search.referrer),
    segment: optionalString(search.segment),
    visitor: optionalString(search.visitor),
    page: pageNumber(search.page),
  }),
  component: lazyRouteComponent(() => import('./sessions/SessionsPage'), 'SessionsPage'),
});
const segments = createRoute({
  getParentRoute: () => workspace,
  path: '/segments',
  component: lazyRouteComponent(() => import('./segments/SegmentsPage'), 'SegmentsPage'),
});
const segment = createRoute({
  getParentRoute: () => workspace,
  path: '/segments/$segment',
  component: lazyRouteComponent(() => import('./segments/SegmentPage'), 'SegmentPage'),
});
const contacts = createRoute({
  getParentRoute: () => workspace,
  path: '/contacts',
  validateSearch: (search: Record<string, unknown>): { page?: number | undefined } => ({
    page: pageNumber(search.page),
  }),
  component: lazyRouteComponent(() => import('./contacts/ContactsPage'), 'ContactsPage'),
});
const settings = createRoute({
  getParentRoute: () => workspace,
  path: '/settings',
  component: lazyRouteComponent(() => import('./settings/SettingsPage'), 'SettingsPage'),
});

const routeTree = root.addChildren([
  signIn,
  forgot,
  setup,
  reset,
  invite,
  home,
  welcome,
  workspace.addChildren([
    overview,
    organisations,
    organisation,
    sessions,
    segments,
    segment,
    contacts,
    settings,
  ]),
]);

export const router = createRouter({
  routeTree,
  context: { queryClient: undefined as unknown as QueryClient },
  defaultPreload: 'intent',
  scrollRestoration: true,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
