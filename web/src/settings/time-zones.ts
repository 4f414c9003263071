/** The person's own time zone, as their browser says. */
export const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Time zones the browser knows, with the person's own and UTC certainly among them. */
export const ZONES = [...new Set([BROWSER_ZONE, 'UTC', ...Intl.supportedValuesOf('timeZone')])];
