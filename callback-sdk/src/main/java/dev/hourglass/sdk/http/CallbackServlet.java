package dev.hourglass.sdk.http;

import dev.hourglass.api.CallbackSignature;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * {@link CallbackHandler} in a servlet container (Jakarta Servlet 5+: Tomcat 10+, Jetty 11+,
 * Spring Boot 3): map it to the service's callback URL.
 *
 * <pre>{@code
 * context.addServlet(new ServletHolder(new CallbackServlet(new CallbackHandler(secret, callback))), "/callbacks/close");
 * }</pre>
 */
public class CallbackServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient CallbackHandler handler;

    public CallbackServlet(CallbackHandler handler) {
        this.handler = handler;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        byte[] body = request.getInputStream().readAllBytes();
        CallbackHandler.Answer answer = handler.handle(request.getHeader(CallbackSignature.HEADER), body);
        byte[] out = answer.body().getBytes(StandardCharsets.UTF_8);
        response.setStatus(answer.status());
        response.setContentType("application/json");
        response.setContentLength(out.length);
        response.getOutputStream().write(out);
    }
}
