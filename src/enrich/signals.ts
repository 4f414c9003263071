// The online signals of contract §16 and how they are combined. The judges live in
// reverse-dns.ts and registration.ts (with the RDAP client in rdap.ts); the lookup queue
// that asks them in the background and attributes visits afterwards lives in lookups.ts.

/** What one signal said about a visit's organisation. */
export type Verdict =
  /** Names an organisation on its own. */
  | 'organisation'
  /** Half-supported: recorded, names nobody until a second signal agrees. */
  | 'weak'
  /** An access provider's, carrier's or host's: never an organisation. */
  | 'provider'
  /** A private person (an individual's registration): never named, never shown. */
  | 'person'
  /** A PTR name that does not resolve back to the address. */
  | 'unconfirmed'
  /** Nothing to go on (no PTR, no record, a lookup that failed). */
  | 'none';

export type SignalName = 'network_owner' | 'reverse_dns' | 'registration';

/** One signal as evidence shows it (`identification.evidence.signals`), never a visitor address. */
export interface SignalEvidence {
  signal: SignalName;
  /** What was read: a host name (address parts written in it replaced by `*`), a registry
   * handle and registrant name, an AS number and name. */
  value: string;
  verdict: Verdict;
}

/** A signal with what it names, when it names (or half-names) someone. */
export interface Signal extends SignalEvidence {
  /** Registrable domain of the organisation it points at, when it has one. */
  domain?: string;
  /** Common name of the organisation it points at, when it has one. */
  name?: string;
}

/** What the signals together name, or null. */
export interface Named {
  domain: string;
  name: string;
  method: SignalName;
  signals: SignalEvidence[];
}
