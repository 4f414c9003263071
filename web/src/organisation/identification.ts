/** How an organisation was identified, in a sentence a salesperson can read. */
export function identificationText(identification: {
  method: string;
  evidence: Record<string, unknown>;
}): string {
  const e = identification.evidence;
  const text = (key: string) =>
    typeof e[key] === 'string' || typeof e[key] === 'number' ? String(e[key]) : '';
  switch (identification.method) {
    case 'email_domain':
      return `A visitor identified themselves with a business e-mail address at ${text('domain') || 'its domain'}.`;
    case 'ip_range':
      return `Its visits came from ${text('network') || 'a network'} in your IP ranges (${text('source') || 'imported'}).`;
    case 'network_owner': {
      const as = text('asn') ? `AS${text('asn').replace(/^AS/i, '')}` : 'its network';
      const owner = text('name') ? ` (${text('name')})` : '';
      const why = text('rule') ? `; rule: ${text('rule')}` : '';
      return `Its visits came from ${as}${owner}, a network judged to belong to an organisation${why}.`;
    }
    case 'reverse_dns':
    case 'registration': {
      const signals = Array.isArray(e.signals) ? (e.signals as { value?: unknown }[]) : [];
      const read = signals.map((s) => String(s.value ?? '')).filter(Boolean);
      const source =
        identification.method === 'reverse_dns'
          ? 'the name of its network address'
          : 'its network’s registration';
      return `Its visits came from a network named by ${source}${read.length ? ` (${read.join('; ')})` : ''}.`;
    }
    default:
      return 'Identified before Footfall recorded how.';
  }
}
