import { useQuery } from '@tanstack/react-query';
import { api, unwrap, unwrapData } from '../api/client';
import { keys } from '../api/keys';

// The signed-out pages' requests. The forms call the writes themselves (not as mutations):
// each shows its own busy state and error, and clears the cache once someone is signed in.

/** Whether a first-start link still works. */
export function useSetupLink(secret: string) {
  return useQuery({
    queryKey: keys.setupLink(secret),
    queryFn: () => unwrap(api.GET('/auth/setup/{secret}', { params: { path: { secret } } })),
    retry: false,
  });
}

/** A reset link's account, while the link still works. */
export function useResetLink(secret: string) {
  return useQuery({
    queryKey: keys.resetLink(secret),
    queryFn: () => unwrapData(api.GET('/auth/reset/{secret}', { params: { path: { secret } } })),
    retry: false,
  });
}

/** An invite: its workspace, address and role, while the link still works. */
export function useInvite(secret: string) {
  return useQuery({
    queryKey: keys.invite(secret),
    queryFn: () => unwrap(api.GET('/auth/invites/{secret}', { params: { path: { secret } } })),
    retry: false,
  });
}

/** The raw answer: the page tells a refused password from a rate limit by its status. */
export function signIn(body: { email: string; password: string }) {
  return api.POST('/auth/sign-in', { body });
}

export function setUp(secret: string, body: { email: string; name: string; password: string }) {
  return unwrap(api.POST('/auth/setup/{secret}', { params: { path: { secret } }, body }));
}

export function resetPassword(secret: string, password: string) {
  return unwrap(
    api.POST('/auth/reset/{secret}', { params: { path: { secret } }, body: { password } }),
  );
}

export function acceptInvite(secret: string, body: { name?: string; password?: string }) {
  return unwrap(api.POST('/auth/invites/{secret}/accept', { params: { path: { secret } }, body }));
}

/** Mails a reset link; the answer's message says what happens next. */
export function requestReset(email: string) {
  return unwrap(api.POST('/auth/forgot', { body: { email } }));
}
