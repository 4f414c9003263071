import { type TSchema, Type } from '@sinclair/typebox';

/** Shared response pieces of the OpenAPI document. */
export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    message: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
  },
  { $id: 'ErrorBody', description: 'Every error answer (contract §2).' },
);

const ErrorRef = Type.Ref('ErrorBody');

/** The error answers a route can give, for its `response` schema. */
export function errorResponses(...codes: number[]): Record<number, TSchema> {
  return Object.fromEntries(codes.map((code) => [code, ErrorRef]));
}

/** `{success, data}`, the wrapper of most single-resource answers. */
export const Wrapped = <T extends TSchema>(data: T) =>
  Type.Object({ success: Type.Boolean(), data });

export const Message = Type.Object({ success: Type.Boolean(), message: Type.String() });

export const UuidParams = Type.Object({ uuid: Type.String({ format: 'uuid' }) });

export const WorkspaceParams = Type.Object({ workspaceUuid: Type.String({ format: 'uuid' }) });
