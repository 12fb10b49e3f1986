import { PRODUCT_GROUPS, type ProductGroup } from '@citrus/contracts'

/** Product groups in their documented order (ATLAS, SYNTHESIS, SEARCH, CARE_SELECT, NOVA), without repeats. */
export function sortProductGroups(groups: Iterable<ProductGroup>): ProductGroup[] {
  const held = new Set(groups)
  return PRODUCT_GROUPS.filter((group) => held.has(group))
}
