/** Text for Slack's mrkdwn, which treats &, < and > as control characters. */
export const slackText = (text: string): string =>
  text.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] ?? c);

/** A URL inside a mrkdwn link `<url|text>`, where <, > and | would end it early. */
export const slackUrl = (url: string): string => url.replace(/[<>|]/g, encodeURIComponent);
