/**
 * The options that shape a tree's content (docs/decisions.md §C14: "A tree
 * remembers how it was written"), as the record keeps them (src/io/treeRecord.ts writes and reads
 * it): `diff --state DIR` renders a change the same way (src/diff/diff.ts). `-o json` is the
 * record's `fileFormat`. One declaration for both layers, which may not import each other.
 */
export interface TreeShape {
  includeHooks?: boolean;
  gatewayOnly?: boolean;
  apiVersions?: string[];
  gatewayApiVersion?: string;
  withController?: boolean;
  /** The Cozystack version the tree was rendered for (docs/versions.md "Choosing a version"). */
  cozystackVersion?: string;
}
