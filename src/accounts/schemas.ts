import { Type } from '@sinclair/typebox';

export const RoleSchema = Type.Union(
  [Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member')],
  {
    description:
      'owner: everything; admin: all but deleting the workspace; member: read and work with the data.',
  },
);
const InvitableRole = Type.Union([Type.Literal('admin'), Type.Literal('member')]);

export const Me = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  name: Type.String(),
  email: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

export const MemberSchema = Type.Object({
  uuid: Type.String({ format: 'uuid' }),
  name: Type.String(),
  email: Type.String(),
  role: RoleSchema,
});

export const MemberList = Type.Object({
  success: Type.Boolean(),
  data: Type.Array(MemberSchema),
  invites: Type.Array(
    Type.Object({
      email: Type.String(),
      role: InvitableRole,
      expires_at: Type.String({ format: 'date-time' }),
    }),
  ),
});

export const InviteBody = Type.Object({
  email: Type.String({ maxLength: 254 }),
  role: Type.Optional(InvitableRole),
});

export const InviteAnswer = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  data: Type.Object({ invite_link: Type.String() }),
});

export const RoleBody = Type.Object({ role: RoleSchema });

export const MemberParams = Type.Object({
  workspaceUuid: Type.String({ format: 'uuid' }),
  userUuid: Type.String({ format: 'uuid' }),
});

export const InviteDetailsSchema = Type.Object({
  workspace: Type.Object({ uuid: Type.String({ format: 'uuid' }), name: Type.String() }),
  email: Type.String(),
  role: InvitableRole,
});

export const AcceptBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 255 })),
  password: Type.Optional(
    Type.String({
      maxLength: 1024,
      description: 'The new account’s password; never checked for an address that has one',
    }),
  ),
});
