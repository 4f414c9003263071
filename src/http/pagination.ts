import { type Static, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { fieldError } from './errors.js';
import { baseUrl } from './links.js';

export const MAX_ROWS = 25_000;

export const PageQuery = Type.Object({
  page: Type.Integer({ minimum: 1, default: 1 }),
  size: Type.Integer({ minimum: 1, maximum: 1000, default: 15 }),
});
export type PageQuery = Static<typeof PageQuery>;

/** The Laravel-style envelope of every paged list (contract §3); all keys always present. */
export interface Page<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number;
  last_page: number;
  last_page_url: string;
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number;
  total: number;
  success: boolean;
}

const nullableString = Type.Union([Type.String(), Type.Null()]);

/** Response schema of a page of `item`, for OpenAPI. */
export const PageSchema = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({
    current_page: Type.Integer(),
    data: Type.Array(item),
    first_page_url: Type.String(),
    from: Type.Integer(),
    last_page: Type.Integer(),
    last_page_url: Type.String(),
    next_page_url: nullableString,
    path: Type.String(),
    per_page: Type.Integer(),
    prev_page_url: nullableString,
    to: Type.Integer(),
    total: Type.Integer(),
    success: Type.Boolean(),
  });

/** Rejects pages that reach past the deepest row a list may page to. */
export function checkPageWindow({ page, size }: PageQuery): void {
  if (page * size > MAX_ROWS) {
    throw fieldError(
      'page',
      `Page × size may not exceed ${MAX_ROWS.toLocaleString('en')} rows; narrow the date range instead of paging deeper.`,
    );
  }
}

export function paginate<T>(
  request: FastifyRequest,
  publicUrl: string | null,
  { page, size }: PageQuery,
  total: number,
  data: T[],
): Page<T> {
  const base = baseUrl(request, publicUrl);
  const url = new URL(request.url, 'http://placeholder');
  const path = `${base}${url.pathname}`;
  const lastPage = Math.max(1, Math.ceil(total / size));
  const pageUrl = (target: number) => {
    const query = new URLSearchParams(url.search);
    query.set('page', String(target));
    query.set('size', String(size));
    return `${path}?${query}`;
  };
  const from = data.length > 0 ? (page - 1) * size + 1 : 0;
  return {
    current_page: page,
    data,
    first_page_url: pageUrl(1),
    from,
    last_page: lastPage,
    last_page_url: pageUrl(lastPage),
    next_page_url: page < lastPage ? pageUrl(page + 1) : null,
    path,
    per_page: size,
    prev_page_url: page > 1 ? pageUrl(Math.min(page - 1, lastPage)) : null,
    to: data.length > 0 ? from + data.length - 1 : 0,
    total,
    success: true,
  };
}
