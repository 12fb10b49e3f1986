-- The FHIR directory's network filters (docs/fhir.md): PractitionerRole?network=Organization/net-{id} and
-- ?network.name= (and _revinclude=PractitionerRole:network) ask for the clinicians whose networks JSON holds
-- {"<insurer>": true}. The search states that as containment (aggregated_insurance_networks_v1 @> ANY(...)), which
-- this GIN index answers: a small network's clinicians are found without reading the table row by row.
-- jsonb_path_ops: smaller than the default jsonb_ops and enough for @>.
CREATE INDEX "providers_networks_gin" ON "providers" USING GIN ("aggregated_insurance_networks_v1" jsonb_path_ops);
