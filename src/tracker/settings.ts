/** What the server builds into each workspace's tracker (read there as `__FOOTFALL__`). */
export interface TrackerSettings {
  id: string;
  /** Absolute with PUBLIC_URL, else a path relative to the script's own address. */
  endpoint: string;
  spotter: string;
  /** Whether the workspace honours Global Privacy Control. */
  gpc: boolean;
  forms: boolean;
  clicks: boolean;
  downloads: boolean;
}
