-- Price Check's cost page (docs/decisions/0056): the peers' per-code figures, precomputed per data version in
-- the same pass over claims x claim_procedures that already gives Care Connect its prices. mv_provider_prices
-- keeps its rows' figures (line_count and the four per-unit averages of the lines with units > 0, exactly as
-- before: sums of sums are exact in numeric, and sum / count is how avg() ends) and gains, over every line of
-- the (npi, code) whatever its units, the cost page's sums: all_line_count and sum_negotiated, and the same per
-- carrier (claims.insurer_name, NULL included) as three aligned arrays. A peer's mean of a code is
-- sum_negotiated / all_line_count, or, for one carrier, the sums of its entries: the same numeric division as
-- avg() of the lines. A code whose lines all have units <= 0 now has a row (line_count 0, averages NULL);
-- Care Connect reads line_count > 0 only. Rows are written ordered by NPI, so that a provider's rows share a
-- page or two (the cost page reads 200 peers' rows), and looked up by (npi, procedure_code).
-- Built beside the old view and swapped in, so that readers wait only for the swap, not the build. The
-- (procedure_code, npi) index had no reader: it is not rebuilt, which pays for part of the wider aggregate.
CREATE MATERIALIZED VIEW "mv_provider_prices_next" AS
SELECT x."npi", x."procedure_code",
       (sum(x."priced_lines"))::int AS "line_count",
       round(sum(x."sum_list") / nullif(sum(x."priced_lines"), 0), 2) AS "avg_list_amount",
       round(sum(x."sum_negotiated_unit") / nullif(sum(x."priced_lines"), 0), 2) AS "avg_negotiated_amount",
       round(sum(x."sum_insurer") / nullif(sum(x."priced_lines"), 0), 2) AS "avg_insurer_amount",
       round(sum(x."sum_patient") / nullif(sum(x."priced_lines"), 0), 2) AS "avg_patient_amount",
       (sum(x."lines"))::int AS "all_line_count",
       sum(x."sum_negotiated") AS "sum_negotiated",
       array_agg(x."insurer_name") AS "carriers",
       array_agg(x."sum_negotiated") AS "carrier_sum_negotiated",
       array_agg(x."lines"::int) AS "carrier_line_count"
FROM (
  SELECT c."rendering_npi" AS "npi", l."procedure_code", c."insurer_name",
         count(*) AS "lines", sum(l."negotiated_amount") AS "sum_negotiated",
         count(*) FILTER (WHERE l."units" > 0) AS "priced_lines",
         sum(l."list_amount" / l."units") FILTER (WHERE l."units" > 0) AS "sum_list",
         sum(l."negotiated_amount" / l."units") FILTER (WHERE l."units" > 0) AS "sum_negotiated_unit",
         sum(l."insurer_amount" / l."units") FILTER (WHERE l."units" > 0) AS "sum_insurer",
         sum(l."patient_amount" / l."units") FILTER (WHERE l."units" > 0) AS "sum_patient"
  FROM "claims" c JOIN "claim_procedures" l ON l."claim_id" = c."id"
  GROUP BY c."rendering_npi", l."procedure_code", c."insurer_name"
) x
GROUP BY x."npi", x."procedure_code"
ORDER BY x."npi", x."procedure_code";
CREATE INDEX "mv_provider_prices_next_npi_code" ON "mv_provider_prices_next" ("npi", "procedure_code");

DROP MATERIALIZED VIEW "mv_provider_prices";
ALTER MATERIALIZED VIEW "mv_provider_prices_next" RENAME TO "mv_provider_prices";
ALTER INDEX "mv_provider_prices_next_npi_code" RENAME TO "mv_provider_prices_npi_code";
