import { Container } from '@mantine/core'
import { useSearchParams } from 'react-router'
import { PageHeader } from '../../../components/layouts/page-header'
import { AiHubPanel } from '../components/ai-hub-panel'

/**
 * /ai-hub: the AI Hub on a page of its own, for staff of a company with Atlas or Nova (the server checks). The
 * same panel is the ai-hub tab of the generic Atlas results and Nova's Strategy Hub tab; `?app=nova` meters
 * the answers against Nova instead of Atlas.
 */
export function AiHubRoute() {
  const [search] = useSearchParams()
  const productGroup = search.get('app')?.toLowerCase() === 'nova' ? 'NOVA' : 'ATLAS'
  return (
    <Container size="xl" py="md">
      <PageHeader title="AI Hub" />
      <AiHubPanel productGroup={productGroup} />
    </Container>
  )
}
