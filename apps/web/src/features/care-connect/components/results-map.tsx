import type { HcoRow, HcpRow } from '../api/care-api'

/**
 * The map of the results (spec 3 §2.2, §2.3): providers and facilities as points, the search radius as a
 * circle. It renders the shared map component (components/map, MapLibre, lazy-loaded) once that component
 * exists in the app; until the integrator wires it in, this place renders nothing. Points are prepared here:
 * invalid coordinates are dropped with a warning (spec 3 §5).
 */
export interface ResultsMapProps {
  providers: HcpRow[]
  facilities: HcoRow[]
  center: { lat: number; lng: number }
  radiusMiles: number
  selectedNpi?: string | null
  onSelect?: (npi: string) => void
}

export interface ResultsMapPoint {
  id: string
  lat: number
  lng: number
  label: string
  color?: string
  group?: string
}

export function resultsMapPoints(providers: HcpRow[], facilities: HcoRow[]): ResultsMapPoint[] {
  const points: ResultsMapPoint[] = []
  const valid = (lat: number, lng: number) => Number.isFinite(lat) && Number.isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180
  for (const p of providers) {
    const { latitude: lat, longitude: lng, npi, full_name } = p.hcp_entity
    if (valid(lat, lng)) points.push({ id: npi, lat, lng, label: full_name, color: '#1c7ed6', group: 'providers' })
    else console.warn(`Invalid coordinates for provider ${npi}`)
  }
  for (const f of facilities) {
    if (valid(f.latitude, f.longitude))
      points.push({
        id: f.hco_npi ?? `hco-${f.hco_id}`,
        lat: f.latitude,
        lng: f.longitude,
        label: f.hco_name,
        color: '#2f9e44',
        group: 'facilities',
      })
    else console.warn(`Invalid coordinates for facility ${f.hco_name}`)
  }
  return points
}

// Wiring point for the shared map (integrator): render
//   <CitrusMap points={resultsMapPoints(...)} cluster selectedId={selectedNpi ?? undefined} onPointClick={onSelect}
//              radiusCircle={{ lat: center.lat, lng: center.lng, radiusMiles }} fitToPoints height="100%" />
export function ResultsMap(_props: ResultsMapProps) {
  return null
}
