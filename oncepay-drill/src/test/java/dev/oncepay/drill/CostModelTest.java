package dev.oncepay.drill;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.oncepay.drill.CostModel.Architecture;
import dev.oncepay.drill.CostModel.Deployment;
import dev.oncepay.drill.CostModel.Estimate;
import dev.oncepay.drill.CostModel.Fixed;
import dev.oncepay.drill.CostModel.Measured;
import dev.oncepay.drill.CostModel.Prices;
import dev.oncepay.drill.CostModel.Service;
import dev.oncepay.drill.CostModel.Units;
import org.junit.jupiter.api.Test;

/** Expectations computed by hand (the arithmetic is in the comments) for one simple input. */
class CostModelTest {
    private static final double CENT_FRACTION = 1e-6;
    private static final double GB = 1024.0 * 1024 * 1024;

    /** Charge 100 ms at 1 GB, webhook 40 ms at 512 MB, sweep 50 ms, a check 200 ms, and round log sizes. */
    private static final Measured RUN = new Measured(100, 20, 10, 40, 50, 200, 400, 0.5, 1000, 800, 600, 500, 2000,
            300, 4000, 2, 1, 5000, 1000);
    private static final Deployment DEPLOYMENT = new Deployment(Architecture.X86_64, 1024, 512, 1024,
            CostModel.MINUTES_PER_MONTH, 1, new Fixed(30, 12, 1, 2));

    private static Estimate estimate(Deployment deployment) {
        return new CostModel(Prices.US_EAST_1, CostModel.inputs(RUN, deployment, Units.measured())).compute();
    }

    @Test
    void aMillionChargesCostTheirRequestsDurationUnitsAndLogs() {
        var charges = estimate(DEPLOYMENT).perMillionCharges();

        // 2 invocations (charge + its webhook) x 1 M x $0.20 per M
        assertEquals(0.40, charges.of(Service.LAMBDA_REQUESTS), CENT_FRACTION);
        // (0.100 s x 1 GB + 0.040 s x 0.5 GB) x 1 M = 120 000 GB-s x $0.0000166667
        assertEquals(2.000004, charges.of(Service.LAMBDA_DURATION), CENT_FRACTION);
        // POST /payments + POST /webhooks/sim: 2 M x $1.00 per M
        assertEquals(2.00, charges.of(Service.API_GATEWAY), CENT_FRACTION);
        // (8 charge + 0.5 breaker) WRU x 1 M x $0.625 per M (the webhook of a settled payment writes nothing)
        assertEquals(5.3125, charges.of(Service.DYNAMODB_WRITES), CENT_FRACTION);
        // 1 payment read by the webhook RRU x 1 M x $0.125 per M
        assertEquals(0.125, charges.of(Service.DYNAMODB_READS), CENT_FRACTION);
        // 1 500 bytes x 1 M = 1.5e9 / 2^30 GB x ($0.50 ingestion + $0.03 a month stored)
        assertEquals(1.5e9 / GB * 0.53, charges.of(Service.CLOUDWATCH_LOGS), CENT_FRACTION);
        assertEquals(0, charges.of(Service.SECRETS_MANAGER), CENT_FRACTION);
        assertEquals(0.40 + 2.000004 + 2.00 + 5.3125 + 0.125 + 1.5e9 / GB * 0.53, charges.total(), CENT_FRACTION);
    }

    @Test
    void armPricesOnlyTheDuration() {
        var charges = estimate(new Deployment(Architecture.ARM64, 1024, 512, 1024, CostModel.MINUTES_PER_MONTH, 1,
                new Fixed(30, 12, 1, 2))).perMillionCharges();

        // 120 000 GB-s x $0.0000133334
        assertEquals(1.600008, charges.of(Service.LAMBDA_DURATION), CENT_FRACTION);
        assertEquals(2.00, charges.of(Service.API_GATEWAY), CENT_FRACTION);
    }

    @Test
    void anUnknownOutcomeCostsTheWaitThePollsAndTheSweepsCheck() {
        var unknown = estimate(DEPLOYMENT).perMillionUnknownOutcomes();

        // 2 polls are requests; the sweep's check runs inside a sweep invocation: 2 M x $0.20 per M
        assertEquals(0.40, unknown.of(Service.LAMBDA_REQUESTS), CENT_FRACTION);
        // (5 s waited + 2 x 0.010 s polls + 0.200 s check) x 1 GB x 1 M = 5 220 000 GB-s x $0.0000166667
        assertEquals(87.000174, unknown.of(Service.LAMBDA_DURATION), CENT_FRACTION);
        assertEquals(2.00, unknown.of(Service.API_GATEWAY), CENT_FRACTION);
        // (2 index keys rewritten + 3 for the sweep's settle) WRU x 1 M x $0.625 per M
        assertEquals(3.125, unknown.of(Service.DYNAMODB_WRITES), CENT_FRACTION);
        // (2 polls + 1 sweep read) RRU x 1 M x $0.125 per M
        assertEquals(0.375, unknown.of(Service.DYNAMODB_READS), CENT_FRACTION);
        // (2 polls x 600 + 300) bytes x 1 M
        assertEquals(1.5e9 / GB * 0.53, unknown.of(Service.CLOUDWATCH_LOGS), CENT_FRACTION);
    }

    @Test
    void replaysColdStartsSweepsAndWhatIsPaidMonthly() {
        Estimate e = estimate(DEPLOYMENT);

        // replay: $0.20 request + 0.020 s x 1 GB x 1 M x $0.0000166667 + $1 API
        // + (1 failed claim + 0.5 breaker request) WRU + 1 payment read RRU + 800 bytes of logs
        assertEquals(0.20 + 0.333334 + 1.00 + 1.5 * 0.625 + 0.125 + 0.8e9 / GB * 0.53, e.perMillionReplays().total(),
                CENT_FRACTION);
        // cold start: no request; 0.400 s x 1 GB x 1 M x $0.0000166667; 1 secret read x 1 M / 10 000 x $0.05
        assertEquals(0, e.perMillionColdStarts().of(Service.LAMBDA_REQUESTS), CENT_FRACTION);
        assertEquals(6.66668, e.perMillionColdStarts().of(Service.LAMBDA_DURATION), CENT_FRACTION);
        assertEquals(5.00, e.perMillionColdStarts().of(Service.SECRETS_MANAGER), CENT_FRACTION);
        // 43 800 sweeps a month: requests 43 800 x $0.20 per M; 0.050 s x 1 GB each x $0.0000166667;
        // 20 empty index queries x 0.5 RRU each x $0.125 per M
        assertEquals(0.00876, e.sweepsPerMonth().of(Service.LAMBDA_REQUESTS), CENT_FRACTION);
        assertEquals(2190 * 0.0000166667, e.sweepsPerMonth().of(Service.LAMBDA_DURATION), CENT_FRACTION);
        assertEquals(43_800 * 10 / 1e6 * 0.125, e.sweepsPerMonth().of(Service.DYNAMODB_READS), CENT_FRACTION);
        // 30 metrics x $0.30 + 12 alarm metrics x $0.10 + 1 dashboard x $3 + 2 secrets x $0.40
        assertEquals(14.00, e.fixedPerMonth(), CENT_FRACTION);
        // 1 000 bytes x 1 M kept = 1e9 / 2^30 GB x ($0.25 storage + $0.20 point-in-time recovery)
        assertEquals(1e9 / GB * 0.45, e.storagePerMonthPerMillionCharges(), CENT_FRACTION);
    }

    @Test
    void theReadmeTableHasALinePerServiceAndTheTotals() {
        String table = new CostModel(Prices.US_EAST_1, CostModel.inputs(RUN, DEPLOYMENT, Units.measured())).markdown();

        assertTrue(table.startsWith("| us-east-1, x86_64 | per million charges |"), table);
        for (Service service : Service.values()) {
            assertTrue(table.contains("| " + service.label + " | "), service.label);
        }
        // total per million charges, as computed above: $10.578
        assertTrue(table.contains("| **total** | **$10.578** |"), table);
        // 100 000 GB-s of charge, 20 000 of webhook, x $0.0000166667
        assertTrue(table.contains("by function: charge $1.667, webhook $0.333."), table);
        assertTrue(table.contains("Fixed per month (custom metrics, alarms, dashboard, secrets): $14.000."), table);
    }

    @Test
    void infraDefaultsWithARunsDurations() {
        Measured run = Measured.withoutDurations().withDurations(50, 15, 10, 20, 100, 30, 600);
        Estimate e = new CostModel(Prices.US_EAST_1,
                CostModel.inputs(run, Deployment.defaults(), Units.measured())).compute();

        // charge 0.050 s x 1 GB + webhook 0.020 s x 0.75 GB (768 MB) = 0.065 GB-s, x 1 M x $0.0000166667
        assertEquals(1.0833355, e.perMillionCharges().of(Service.LAMBDA_DURATION), CENT_FRACTION);
        // the breaker's request on every charge (its bound, a write) + the charge's 8: 9 M WRU x $0.625 per M;
        // the webhook's payment read: 1 M RRU x $0.125 per M
        assertEquals(5.625, e.perMillionCharges().of(Service.DYNAMODB_WRITES), CENT_FRACTION);
        assertEquals(0.125, e.perMillionCharges().of(Service.DYNAMODB_READS), CENT_FRACTION);
        // (649 + 100) bytes of payment and (223 + 100) of its order x 1 M kept a month
        assertEquals(1072e6 / GB * 0.45, e.storagePerMonthPerMillionCharges(), CENT_FRACTION);
    }

    @Test
    void theBenchsFiguresFillTheChargeAndColdStartDurations() throws Exception {
        JsonNode bench = new ObjectMapper().readTree("{\"addedLatency\":{\"chargeFunctionMeanMs\":41.2},"
                + "\"coldStart\":{\"charge\":{\"initMs\":{\"median\":1210.4,\"min\":1100,\"max\":1300}}}}");
        Measured run = Measured.fromBench(bench);

        assertEquals(42, run.chargeBilledMs(), 0);
        assertEquals(1211, run.coldStartBilledMs(), 0);
        assertEquals(0, run.webhookBilledMs(), 0);
        assertEquals(Measured.withoutDurations().chargeLogBytes(), run.chargeLogBytes(), 0);
    }
}
