package dev.oncepay.http;

import dev.oncepay.config.OncepayConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;

/**
 * Finds the operator of an operator API request: the IAM principal API Gateway authorized
 * ({@code requestContext.authorizer.iam.userArn}, else {@code userId}). A client header is
 * honoured only where a local run or the tests configured one. A request carrying a merchant's
 * token (a JWT or Lambda authorizer context) is never an operator's, whatever else it carries.
 */
@ApplicationScoped
public class OperatorResolver {
    private static final int MAX_LENGTH = 512;

    private final Optional<String> trustedHeader;

    public OperatorResolver(OncepayConfig config) {
        this.trustedHeader = config.operator().trustedHeader().filter(h -> !h.isBlank());
    }

    /** @throws ForbiddenException no operator identity, or a merchant's authorizer context */
    public String operatorOf(HttpApiEvent event) {
        HttpApiEvent.Authorizer authorizer = event.requestContext() == null ? null
                : event.requestContext().authorizer();
        if (authorizer != null && (authorizer.jwt() != null || authorizer.lambda() != null)) {
            throw new ForbiddenException("the operator API does not accept merchant credentials");
        }
        String operator = null;
        if (authorizer != null && authorizer.iam() != null) {
            operator = authorizer.iam().userArn() != null ? authorizer.iam().userArn() : authorizer.iam().userId();
        }
        if (operator == null && trustedHeader.isPresent()) {
            operator = event.header(trustedHeader.get());
        }
        if (operator == null || operator.isBlank()) {
            throw new ForbiddenException("the request carries no operator identity");
        }
        if (operator.length() > MAX_LENGTH || !operator.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw new ForbiddenException("the operator identity is malformed");
        }
        return operator;
    }
}
