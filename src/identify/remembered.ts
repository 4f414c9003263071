const REMEMBERED_ADDRESSES = 10_000;

/**
 * `answer` with the answers for the last addresses kept, in memory only: a visitor's requests
 * come from one address, and the collector asks for each of them. The map is emptied when
 * full, which costs less per lookup than a least-recently-used list. For answers that never
 * change while the function lives.
 */
export function rememberedByAddress<T>(answer: (ip: string) => T): (ip: string) => T {
  const answers = new Map<string, T>();
  return (ip) => {
    if (answers.has(ip)) return answers.get(ip) as T;
    const found = answer(ip);
    if (answers.size >= REMEMBERED_ADDRESSES) answers.clear();
    answers.set(ip, found);
    return found;
  };
}
