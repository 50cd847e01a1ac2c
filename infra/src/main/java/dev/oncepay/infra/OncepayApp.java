package dev.oncepay.infra;

import software.amazon.awscdk.App;
import software.amazon.awscdk.StackProps;

/**
 * The CDK app: one stack, {@code Oncepay}, environment-agnostic (account and region come from
 * the deploying credentials), so {@code cdk synth} needs no AWS access. See {@link OncepaySettings}
 * for the {@code -c oncepay:…} choices and {@link OncepayStack} for the parameters.
 */
public final class OncepayApp {
    private OncepayApp() {
    }

    public static void main(String[] args) {
        App app = new App();
        OncepaySettings settings = OncepaySettings.from(app.getNode()::tryGetContext);
        String stackName = String.valueOf(app.getNode().tryGetContext(OncepaySettings.PREFIX + "stackName"));
        new OncepayStack(app, "null".equals(stackName) ? "Oncepay" : stackName,
                StackProps.builder()
                        .description("oncepay: payments API, provider webhooks and reconciliation on Lambda and DynamoDB")
                        .build(),
                settings);
        app.synth();
    }
}
