import type { components, paths } from './schema';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body of a route's success answer (200, else 201), as the server documents it. */
export type Ok<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: infer A }
    ? Json<A>
    : R extends { 201: infer B }
      ? Json<B>
      : never
  : never;

/** The JSON body a route takes. */
export type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer B;
}
  ? Json<NonNullable<B>>
  : never;

/** An organisation as the API answers it. */
export type Organisation = components['schemas']['Organisation'];
