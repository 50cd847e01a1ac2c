package dev.oncepay.api;

import dev.oncepay.config.OncepayConfig;
import dev.oncepay.http.HttpApiEvent;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.regex.Pattern;

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
    /** A session of the operator role: {@code arn:<partition>:sts::<account>:assumed-role/<role>/<session>}. */
    private final Optional<Pattern> operatorRoleSession;

    public OperatorResolver(OncepayConfig config) {
        this.trustedHeader = config.operator().trustedHeader().filter(h -> !h.isBlank());
        this.operatorRoleSession = config.operator().roleName().filter(r -> !r.isBlank())
                .map(role -> Pattern.compile("arn:[a-z-]+:sts::\\d{12}:assumed-role/" + Pattern.quote(role) + "/[^/]+"));
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
            if (operatorRoleSession.isPresent() && (operator == null
                    || !operatorRoleSession.get().matcher(operator).matches())) {
                throw new ForbiddenException("only a session of the operator role may call the operator API");
            }
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
