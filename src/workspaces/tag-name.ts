import { fieldError } from '../http/errors.js';

/** A tag's name as given in `tag_name`, trimmed; a blank one is refused. */
export function parseTagName(raw: string): string {
  const name = raw.trim();
  if (!name) throw fieldError('tag_name', 'The tag name field must not be empty.');
  return name;
}
