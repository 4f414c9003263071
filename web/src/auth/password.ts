export const PASSWORD_HINT = 'At least 10 characters. A few unrelated words make a strong one.';
