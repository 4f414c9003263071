/** How many rows a statement's result says it changed (0 when it says nothing). */
export const affectedRows = (result: { numAffectedRows?: bigint }): number =>
  Number(result.numAffectedRows ?? 0n);
