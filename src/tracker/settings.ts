/** What the server builds into each workspace's tracker (read there as `__FOOTFALL__`). */
export interface TrackerSettings {
  id: string;
  endpoint: string;
  spotter: string;
  /** Whether the workspace honours Global Privacy Control. */
  gpc: boolean;
  forms: boolean;
  clicks: boolean;
  downloads: boolean;
}
