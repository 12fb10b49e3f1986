import { Group, Pagination, Select, Text } from '@mantine/core'
import type { usePagination } from '../../lib/pagination'

/** Page controls under a table (spec 1 §4, §9); hidden while everything fits on the smallest page. */
export function TablePagination({ pagination, total }: { pagination: ReturnType<typeof usePagination>; total: number }) {
  if (total <= Math.min(...pagination.sizes)) return null
  const first = (pagination.page - 1) * pagination.size + 1
  const last = Math.min(total, pagination.page * pagination.size)
  return (
    <Group justify="space-between" mt="md" gap="sm">
      <Text size="sm" c="dimmed">
        {first}–{last} of {total}
      </Text>
      <Group gap="sm">
        <Select
          aria-label="Rows per page"
          size="xs"
          w={80}
          data={pagination.sizes.map(String)}
          value={String(pagination.size)}
          onChange={(value) => value && pagination.setSize(Number(value))}
          allowDeselect={false}
        />
        <Pagination size="sm" total={pagination.totalPages} value={pagination.page} onChange={pagination.setPage} />
      </Group>
    </Group>
  )
}
