import { Type } from '@sinclair/typebox';

const Email = Type.String({ maxLength: 254, description: 'An e-mail address.' });
// Checked in the handler for contract §12's message; the cap keeps argon2's input sane.
const Password = Type.String({ maxLength: 1024, description: 'At least 10 characters.' });
const Name = Type.String({ maxLength: 255 });

export const SignInBody = Type.Object({ email: Email, password: Password });
export const SetupBody = Type.Object({
  email: Email,
  name: Type.Optional(Name),
  password: Password,
});
export const ResetBody = Type.Object({ password: Password });
export const ForgotBody = Type.Object({ email: Email });
export const PasswordChangeBody = Type.Object({ current_password: Password, password: Password });
export const SecretParams = Type.Object({ secret: Type.String({ maxLength: 128 }) });

export const ResetLink = Type.Object({
  success: Type.Boolean(),
  data: Type.Object({ email: Type.String() }),
});

export const ServerInfo = Type.Object({
  success: Type.Boolean(),
  data: Type.Object({
    mail: Type.Boolean({
      description: 'Whether the server sends e-mail (SMTP_URL): invites, alerts and resets by mail',
    }),
    public_url: Type.Union([Type.String(), Type.Null()], {
      description: 'PUBLIC_URL, or null when links name the address a request came in on',
    }),
  }),
});
