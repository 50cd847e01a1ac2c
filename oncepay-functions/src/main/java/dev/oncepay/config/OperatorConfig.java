package dev.oncepay.config;

import java.util.Optional;

/** Who may call the operator API ({@code oncepay.operator.*}). */
public interface OperatorConfig {

    /**
     * Local runs and tests only: header that stands in for IAM authorization of the operator
     * API ({@code X-Operator-Id}). Empty in production, where the operator is the IAM principal.
     */
    Optional<String> trustedHeader();

    /**
     * The IAM role whose sessions alone may call the operator API ({@code OperatorRole}; infra
     * sets it). HTTP APIs have no resource policy, so an IAM administrator allowed
     * {@code execute-api:Invoke} on everything would otherwise pass API Gateway's check too.
     * Empty: any principal API Gateway authorized (local runs, tests).
     */
    Optional<String> roleName();
}
