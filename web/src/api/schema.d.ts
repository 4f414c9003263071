// Generated from /openapi.json by test/web/api-types.test.ts; do not edit.
export interface paths {
    "/t/collect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record a visit's events (the tracking script sends them; no token)
         * @description The tracking script posts here as text/plain (no CORS preflight) or JSON, from any origin. 202 once the events are durably stored; sessions and organisations follow within seconds. Each event may carry an `id` (UUID): an event id is stored once per workspace, so a request sent again stores nothing twice. One bad value refuses the whole batch (400); at most 100 events and 64 KB (413). Unknown script 404, unlinked 410; 503 with Retry-After when the events could not be stored or too many wait to be processed: send them again.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        tracking_script_id: string;
                        anonymous_id: string;
                        session_uuid: string;
                        events: {
                            id?: string;
                            type: "pageview" | "page_leave" | "form_submit" | "form_abandon" | "click" | "download" | "custom" | "identify";
                            ts: string | number;
                            url: string;
                            referrer?: string;
                            title?: string;
                            time_on_page?: number;
                            form_id?: string;
                            form_name?: string;
                            time_spent?: number;
                            fields?: {
                                name: string;
                                value: unknown;
                            }[];
                            href?: string;
                            text?: string;
                            name?: string;
                            properties?: {
                                [key: string]: string | number | boolean | null;
                            };
                            email?: string;
                            traits?: {
                                [key: string]: unknown;
                            };
                        }[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            accepted: number;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/spotter/v1/{trackingScriptId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The visitor's organisation, for the workspace's own site (no token)
         * @description Resolves the caller by its address and visitor id as the collector does. Answers only the name, website, logo, industry, size, country and the custom fields marked visible_in_spotter. Readable (CORS) only by pages of the workspace’s site.
         */
        get: {
            parameters: {
                query?: {
                    /** @description the tracker’s visitor id (anonymous_id) */
                    visitor?: string;
                };
                header?: never;
                path: {
                    trackingScriptId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                organisation: {
                                    name: string;
                                    website: string;
                                    logo: string;
                                    industry: string;
                                    size: string;
                                    country: string;
                                    /** @description Values of the custom fields marked visible_in_spotter, and no others */
                                    custom_fields: {
                                        [key: string]: unknown;
                                    };
                                } | null;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                410: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What this server offers the dashboard: e-mail, and whether PUBLIC_URL is set */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** @description Whether the server sends e-mail (SMTP_URL): invites, alerts and resets by mail */
                                mail: boolean;
                                /** @description PUBLIC_URL, or null when links name the address a request came in on */
                                public_url: string | null;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with e-mail and password; sets the session cookies */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An e-mail address. */
                        email: string;
                        /** @description At least 10 characters. */
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Signed in: session cookies set. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign out: ends the browser session and clears its cookies */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change your password (signed in); your other sessions and all your personal access tokens end */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description At least 10 characters. */
                        current_password: string;
                        /** @description At least 10 characters. */
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/setup/{secret}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Whether a first-start setup link still works */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    secret: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /** Create the first user through the setup link from the log; signs in */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    secret: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An e-mail address. */
                        email: string;
                        name?: string;
                        /** @description At least 10 characters. */
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Signed in: session cookies set. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/reset/{secret}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account a password-reset link is for */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    secret: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                email: string;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /** Choose a new password through a reset link; signs in, other sessions and all personal access tokens end */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    secret: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description At least 10 characters. */
                        password: string;
                    };
                };
            };
            responses: {
                /** @description Signed in: session cookies set. */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/forgot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Forgot password: mails a one-time reset link when the address has an account (the same answer either way) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An e-mail address. */
                        email: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/invites/{secret}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What an invite link is for (404 once used or expired) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    secret: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            workspace: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                            };
                            email: string;
                            role: "admin" | "member";
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/invites/{secret}/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Join through an invite: signed in as the invited address (its session cookie), or with {name, password} to create the account when the address has none */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    secret: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        /** @description The new account’s password; never checked for an address that has one */
                        password?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who you are: the user your token or session speaks for */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                email: string;
                                /** Format: date-time */
                                created_at: string;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's members and open invites */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                email: string;
                                /** @description owner: everything; admin: all but deleting the workspace; member: read and work with the data. */
                                role: "owner" | "admin" | "member";
                            }[];
                            invites: {
                                email: string;
                                role: "admin" | "member";
                                /** Format: date-time */
                                expires_at: string;
                            }[];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/users/invite": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Invite someone by e-mail (a single-use link, valid 7 days)
         * @description With SMTP_URL set, each invite is one e-mail of the mail budget: MAIL_PER_USER_PER_MINUTE per user (default 60) and MAIL_PER_WORKSPACE_PER_MINUTE per workspace (default 120); beyond it 429 with Retry-After, and no invite is made.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        email: string;
                        role?: "admin" | "member";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                            data: {
                                invite_link: string;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/users/{userUuid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a member, or leave the workspace yourself */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    userUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a member's role (admins cannot touch owners) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    userUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description owner: everything; admin: all but deleting the workspace; member: read and work with the data. */
                        role: "owner" | "admin" | "member";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                email: string;
                                /** @description owner: everything; admin: all but deleting the workspace; member: read and work with the data. */
                                role: "owner" | "admin" | "member";
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/me/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your personal access tokens (not revoked), newest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                /** Format: date-time */
                                created_at: string;
                                /** @description null: never expires */
                                expires_at: string | null;
                                /** @description always null: revoked tokens are not listed */
                                revoked_at: null;
                            }[];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /** Make a personal access token; the answer is the only time it is shown. A token cannot make one that outlives it */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description what the token is for */
                        name: string;
                        /** @description lifetime in days; absent or null: never expires. Made with a token that expires: no later than it (422) */
                        expires_in_days?: number | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                /** Format: date-time */
                                created_at: string;
                                /** @description null: never expires */
                                expires_at: string | null;
                                /** @description always null: revoked tokens are not listed */
                                revoked_at: null;
                                token: string;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me/tokens/{tokenUuid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke one of your tokens (it stops working at once) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    tokenUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List your workspaces */
        get: {
            parameters: {
                query: {
                    page: number;
                    size: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: components["schemas"]["Workspace"][];
                            first_page_url: string;
                            from: number;
                            last_page: number;
                            last_page_url: string;
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number;
                            total: number;
                            success: boolean;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /** Create a workspace (one tracked website) with a new tracking script */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The tracked site, http or https */
                        url: string;
                        name?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Workspace"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{uuid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a workspace */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Workspace"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a workspace (owner): gone at once, its tracking script refused; data purged in the background */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a workspace's usage limit */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        usage_limit?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Workspace"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{uuid}/unlink": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Revoke the workspace's tracking script; recorded data stays */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/tracker-features": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Which of form, click and download tracking are on */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["TrackerFeatures"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Switch form, click and download tracking on or off */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        form_tracking?: boolean;
                        click_tracking?: boolean;
                        download_tracking?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["TrackerFeatures"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/privacy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's privacy settings */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["PrivacySettings"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change privacy settings: honour Global Privacy Control */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        honor_gpc?: boolean;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["PrivacySettings"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/filters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's ingest filters: excluded IP ranges and accepted hostnames */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** @description Addresses and CIDR ranges whose visits are not tracked (your own office), in CIDR form */
                                excluded_ip_ranges: string[];
                                /** @description Hosts whose pages may send events: exact hosts, `*.example.com` for its subdomains, `*` for any */
                                hostnames: string[];
                                /** @description true while hostnames is the default: the site URL’s host and its www. twin */
                                hostnames_default: boolean;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the excluded IP ranges or the accepted hostnames (null: the default) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        excluded_ip_ranges?: string[];
                        /** @description null restores the default */
                        hostnames?: string[] | null;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** @description Addresses and CIDR ranges whose visits are not tracked (your own office), in CIDR form */
                                excluded_ip_ranges: string[];
                                /** @description Hosts whose pages may send events: exact hosts, `*.example.com` for its subdomains, `*` for any */
                                hostnames: string[];
                                /** @description true while hostnames is the default: the site URL’s host and its www. twin */
                                hostnames_default: boolean;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a tag to the workspace's available tags */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        tag_name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Workspace"];
                        };
                    };
                };
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Workspace"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/demo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a workspace of your own filled with demo data (synthetic companies and visits)
         * @description At most 5 made per user in any 24 hours, deleted ones included; beyond it 429 with Retry-After, and the message says when another can be made.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Workspace"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/installation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Installation status: the last event received and what was dropped, and why */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** @description the last event received in the last two days, stored or dropped; null: none */
                                last_event_at: string | null;
                                /** @description events stored in the last 24 hours */
                                events_24h: number;
                                dropped_24h: {
                                    total: number;
                                    /** @description bot, gpc, excluded_ip_range, foreign_hostname, feature_disabled: events not stored, and why */
                                    reasons: {
                                        [key: string]: number;
                                    };
                                };
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/custom-fields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspace's organisation custom fields */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["CustomField"][];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /** Define a custom field (answers the bare definition) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        key: string;
                        name: string;
                        type: "text" | "number" | "date" | "boolean" | "select" | "multi_select" | "url" | "email";
                        description?: string;
                        group?: string;
                        is_visible?: boolean;
                        visible_in_spotter?: boolean;
                        field_rules?: {
                            type: "required" | "min_length" | "max_length" | "min" | "max" | "pattern";
                            config: {
                                [key: string]: unknown;
                            };
                        }[];
                        options?: {
                            key: string;
                            label: string;
                            /** @description hex colour */
                            color: string;
                        }[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CustomField"];
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/custom-fields/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one custom field definition (bare, as PATCH answers) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CustomField"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a custom field definition and its values */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a custom field definition (answers the bare definition) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        description?: string;
                        group?: string;
                        is_visible?: boolean;
                        visible_in_spotter?: boolean | null;
                        field_rules?: {
                            type: "required" | "min_length" | "max_length" | "min" | "max" | "pattern";
                            config: {
                                [key: string]: unknown;
                            };
                        }[];
                        options?: {
                            key: string;
                            label: string;
                            /** @description hex colour */
                            color: string;
                        }[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CustomField"];
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/custom-fields": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An organisation's custom values, then its read-only profile fields */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CustomFieldValue"][];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set 1 to 50 values at once, all or none; a new key gets a definition
         * @description Each key with a definition is checked as PUT checks it. A key without one is defined (name from the key, group `custom`, source `manual`), its type taken from the value. Any refused key → 422 naming `custom_fields.<key>`, and nothing is stored, definitions included.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description 1 to 50 keys, each set to a value that is not empty (`""`, `null` and `[]` are refused: clear a value with DELETE). A key without a definition gets one, its type taken from the value: boolean, number, `YYYY-MM-DD` date, http(s) URL, e-mail address, else text. All are stored or none is. */
                        custom_fields: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["CustomFieldValue"][];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/custom-fields/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Set an organisation's value of a custom field (checked by type, options, rules); answers the bare value object */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                    key: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Checked against the field's type, options and rules */
                        value: unknown;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CustomFieldValue"];
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        post?: never;
        /** Clear an organisation's value of a custom field */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                    key: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Organisation"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/segments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspace's segments (a bare array, ordered by name) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Segment"][];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /** Save a segment; its members are computed before the answer */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                        /** @description A group of conditions joined by AND or OR; groups nest. Fields, comparisons and value types: docs/segments.md. Conditions as in the SegmentFilters schema. */
                        filters: {
                            /** @description AND or OR */
                            operator: string;
                            /** @description Conditions {field, comparison, value, unit?} and nested groups {operator, conditions} */
                            conditions: unknown[];
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SegmentWithFilters"];
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/segments/{segmentUuid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one segment with its filters */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    segmentUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SegmentWithFilters"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a segment */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    segmentUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Rename a segment or change its filters (members are computed again) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    segmentUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        /** @description A group of conditions joined by AND or OR; groups nest. Fields, comparisons and value types: docs/segments.md. Conditions as in the SegmentFilters schema. */
                        filters?: {
                            /** @description AND or OR */
                            operator: string;
                            /** @description Conditions {field, comparison, value, unit?} and nested groups {operator, conditions} */
                            conditions: unknown[];
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SegmentWithFilters"];
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List attributed sessions in a date range, newest first */
        get: {
            parameters: {
                query: {
                    page: number;
                    size: number;
                    /** @description one day; not with date_from or date_to (YYYY-MM-DD, UTC) */
                    date?: string;
                    /** @description first day, inclusive (YYYY-MM-DD, UTC) */
                    date_from?: string;
                    /** @description last day, inclusive; default today (YYYY-MM-DD, UTC) */
                    date_to?: string;
                    /** @description a view or event URL contains this (any case) */
                    url?: string;
                    /** @description the referrer contains this (any case) */
                    referrer?: string;
                    /** @description that visitor's sessions */
                    visitor_uuid?: string;
                    /** @description only organisations in this segment */
                    segmentUuid?: string;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: components["schemas"]["Session"][];
                            first_page_url: string;
                            from: number;
                            last_page: number;
                            last_page_url: string;
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number;
                            total: number;
                            success: boolean;
                            truncated: boolean;
                            total_organisations: number;
                            organisation_limit: number;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List one organisation's sessions, newest first; dates optional */
        get: {
            parameters: {
                query: {
                    page: number;
                    size: number;
                    /** @description one day; not with date_from or date_to (YYYY-MM-DD, UTC) */
                    date?: string;
                    /** @description first day, inclusive (YYYY-MM-DD, UTC) */
                    date_from?: string;
                    /** @description last day, inclusive; default today (YYYY-MM-DD, UTC) */
                    date_to?: string;
                    /** @description a view or event URL contains this (any case) */
                    url?: string;
                    /** @description the referrer contains this (any case) */
                    referrer?: string;
                    /** @description that visitor's sessions */
                    visitor_uuid?: string;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: components["schemas"]["Session"][];
                            first_page_url: string;
                            from: number;
                            last_page: number;
                            last_page_url: string;
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number;
                            total: number;
                            success: boolean;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sessions, organisations and page views per day, and the top lists, for charts */
        get: {
            parameters: {
                query: {
                    /** @description first day, inclusive (YYYY-MM-DD, UTC) */
                    date_from: string;
                    /** @description last day, inclusive; at most 366 days after date_from (YYYY-MM-DD, UTC) */
                    date_to: string;
                    /** @description only organisations in this segment */
                    segmentUuid?: string;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** @description Figures of a date range, for charts (docs/api.md). */
                            data: {
                                /** @description Every day of the range, oldest first, zero-filled. */
                                days: {
                                    /** Format: date */
                                    date: string;
                                    /** @description attributed sessions that started this day (as the sessions list counts) */
                                    sessions: number;
                                    /** @description distinct organisations with such a session */
                                    organisations: number;
                                    /** @description page views of those sessions */
                                    pageviews: number;
                                    /** @description distinct visitors with a stored event this day, identified or not */
                                    visitors: number;
                                    /** @description of them, those with a session attributed to an organisation */
                                    identified_visitors: number;
                                }[];
                                /** @description The whole range; the match rate is identified_visitors of visitors. */
                                totals: {
                                    /** @description distinct visitors of the range: one who came on several days counts once */
                                    visitors: number;
                                    /** @description of them, those attributed to an organisation */
                                    identified_visitors: number;
                                    /** @description attributed sessions (the sum of the days’) */
                                    sessions: number;
                                    /** @description distinct organisations of the range (the organisations list’s total) */
                                    organisations: number;
                                    /** @description page views of those sessions (the sum of the days’) */
                                    pageviews: number;
                                };
                                /** @description Up to 10: the identified visitors’ views, as every other figure; see docs. */
                                top_pages: {
                                    url: string;
                                    /** @description views of attributed sessions on the range’s days */
                                    pageviews: number;
                                }[];
                                /** @description Up to 10, by the session’s traffic source. */
                                top_sources: {
                                    source: string;
                                    /** @description attributed sessions */
                                    sessions: number;
                                }[];
                                /** @description Up to 10; organisations without a known industry are left out. */
                                top_industries: {
                                    industry: string;
                                    /** @description distinct organisations */
                                    organisations: number;
                                }[];
                                /** @description Up to 10; organisations without a known country are left out. */
                                top_countries: {
                                    /** @description the organisation’s country, as its profile has it */
                                    country: string;
                                    /** @description distinct organisations */
                                    organisations: number;
                                }[];
                                /** @description Up to 10 most active organisations: most sessions, then page views. */
                                top_organisations: {
                                    /** Format: uuid */
                                    uuid: string;
                                    name: string;
                                    /** @description attributed sessions on the range’s days */
                                    sessions: number;
                                    /** @description their page views */
                                    pageviews: number;
                                }[];
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/organisations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List organisations (leads only unless asked), most recently active first */
        get: {
            parameters: {
                query: {
                    page: number;
                    size: number;
                    /** @description name contains (any case) */
                    name?: string;
                    /** @description seen on or after this day (YYYY-MM-DD) */
                    date_from?: string;
                    /** @description seen on or before this day (YYYY-MM-DD) */
                    date_to?: string;
                    /** @description members of this segment */
                    segmentUuid?: string;
                    /** @description only these organisations (repeat the parameter, up to 100): one request for the names of a page of sessions or contacts */
                    uuid?: string[];
                    /** @description carries this tag (any case) */
                    tag?: string;
                    /** @description segment filters as JSON (the grammar of POST .../organisations), ANDed */
                    filters?: string;
                    /** @description score, last_seen, sessions or name; a leading - for descending (default -last_seen) */
                    sort?: string;
                    /** @description owned by this member (a uuid), or `me` for the caller */
                    owner?: string;
                    /** @description lead, customer, competitor, hidden (comma-separated for several); default lead only */
                    status?: string;
                    /** @description every status, not only leads (when `status` is not given) */
                    include_all?: boolean;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: components["schemas"]["Organisation"][];
                            first_page_url: string;
                            from: number;
                            last_page: number;
                            last_page_url: string;
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number;
                            total: number;
                            success: boolean;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Search organisations with segment filters, ad hoc (a page, as the list answers)
         * @description Takes `page` and `size` in the query string. The page links point at this URL: POST the same body to them for the other pages.
         */
        post: {
            parameters: {
                query: {
                    page: number;
                    size: number;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description A group of conditions joined by AND or OR; groups nest. Fields, comparisons and value types: docs/segments.md. Conditions as in the SegmentFilters schema. */
                        filters: {
                            /** @description AND or OR */
                            operator: string;
                            /** @description Conditions {field, comparison, value, unit?} and nested groups {operator, conditions} */
                            conditions: unknown[];
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: components["schemas"]["Organisation"][];
                            first_page_url: string;
                            from: number;
                            last_page: number;
                            last_page_url: string;
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number;
                            total: number;
                            success: boolean;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an organisation with its profile, tags, segments and figures */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Organisation"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set an organisation’s owner and status (any member)
         * @description The owner must be a member of the workspace (422 otherwise); null takes the owner away. Customers, competitors and hidden organisations leave the list, CSV, digests and alerts.
         */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description a member of the workspace, or null for none */
                        owner_uuid?: string | null;
                        status?: "lead" | "customer" | "competitor" | "hidden";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Organisation"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/organisations/{organisationUuid}/tags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Tag an organisation (the tag joins the available tags) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        tag_name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        /** Remove a tag from an organisation */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    organisationUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        tag_name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/scoring": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The lead scoring rules and key pages (the defaults until an admin saves) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** Scoring */
                            data: {
                                rules: {
                                    name: string;
                                    filters: components["schemas"]["SegmentFilters"];
                                    points: number;
                                }[];
                                key_pages: {
                                    url_contains: string;
                                    points: number;
                                }[];
                                /** @description true while the workspace scores with the defaults */
                                defaults: boolean;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        /**
         * Replace the lead scoring rules and key pages (admins); scores follow within a minute
         * @description Score = clamp(0, 100, Σ points of the rules an organisation matches + Σ points of each key page it viewed in the last 30 days). Rules take the segment filter grammar, every field but score.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        rules: {
                            name: string;
                            /** @description A group of conditions joined by AND or OR; groups nest. Fields, comparisons and value types: docs/segments.md. Conditions as in the SegmentFilters schema. */
                            filters: {
                                /** @description AND or OR */
                                operator: string;
                                /** @description Conditions {field, comparison, value, unit?} and nested groups {operator, conditions} */
                                conditions: unknown[];
                            };
                            points: number;
                        }[];
                        key_pages: {
                            url_contains: string;
                            points: number;
                        }[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** Scoring */
                            data: {
                                rules: {
                                    name: string;
                                    filters: components["schemas"]["SegmentFilters"];
                                    points: number;
                                }[];
                                key_pages: {
                                    url_contains: string;
                                    points: number;
                                }[];
                                /** @description true while the workspace scores with the defaults */
                                defaults: boolean;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        post?: never;
        /** Go back to the default scoring (admins); scores follow within a minute */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** Scoring */
                            data: {
                                rules: {
                                    name: string;
                                    filters: components["schemas"]["SegmentFilters"];
                                    points: number;
                                }[];
                                key_pages: {
                                    url_contains: string;
                                    points: number;
                                }[];
                                /** @description true while the workspace scores with the defaults */
                                defaults: boolean;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/scoring/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** How many leads would score above 60 with these rules (nothing is saved) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        rules: {
                            name: string;
                            /** @description A group of conditions joined by AND or OR; groups nest. Fields, comparisons and value types: docs/segments.md. Conditions as in the SegmentFilters schema. */
                            filters: {
                                /** @description AND or OR */
                                operator: string;
                                /** @description Conditions {field, comparison, value, unit?} and nested groups {operator, conditions} */
                                conditions: unknown[];
                            };
                            points: number;
                        }[];
                        key_pages: {
                            url_contains: string;
                            points: number;
                        }[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                threshold: number;
                                /** @description leads that would score above the threshold */
                                above: number;
                                /** @description all leads */
                                leads: number;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/excluded-domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Domains whose organisations are hidden (own domains, customers) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** ExcludedDomains */
                            data: {
                                /** @description registrable domains, sorted */
                                domains: string[];
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        /**
         * Replace the excluded domains (admins, up to 10,000)
         * @description Domains, www. names or URLs, each kept as its registrable domain. Organisations of those domains (and their subdomains) become hidden now and when they arrive; a domain taken off brings back what it hid.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        domains: string[];
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                domains: string[];
                                /** @description organisations hidden by this change */
                                hidden: number;
                                /** @description organisations it brought back */
                                shown: number;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/zapier/hooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's Zapier hooks (admins) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                id: string;
                                name: string;
                                hookUrl: string;
                                /** @description new_lead: an organisation identified for the first time (body: the Organisation); new_session: a session of an organisation ended (body: the Session with `organisation`); contacts_revealed: a contact identified (body: the Contact) */
                                event: "new_lead" | "new_session" | "contacts_revealed";
                            }[];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /**
         * Subscribe a hook to an event (admins); default event new_lead
         * @description Each event is POSTed to hookUrl as JSON, retried like webhooks (1 min, 5 min, 30 min, 2 h); an answer of 410 Gone removes the hook.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description https, resolving to public addresses (contract §10) */
                        hookUrl: string;
                        /** @description new_lead: an organisation identified for the first time (body: the Organisation); new_session: a session of an organisation ended (body: the Session with `organisation`); contacts_revealed: a contact identified (body: the Contact) */
                        event?: "new_lead" | "new_session" | "contacts_revealed";
                        name?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** ZapierHook */
                            data: {
                                id: string;
                                hookUrl: string;
                                /** @description new_lead: an organisation identified for the first time (body: the Organisation); new_session: a session of an organisation ended (body: the Session with `organisation`); contacts_revealed: a contact identified (body: the Contact) */
                                event: "new_lead" | "new_session" | "contacts_revealed";
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/zapier/hooks/{hookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Unsubscribe a hook (admins); its pending deliveries go with it */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    hookId: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/integrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace's CRM connections, HubSpot and Pipedrive (admins) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                name: "hubspot" | "pipedrive";
                                enabled: boolean;
                                /** @description syncing: a backfill is under way; disabled: paused by an admin; failed: the CRM refused the token (see last_error), nothing is sent until it is replaced */
                                status: "not_connected" | "connected" | "syncing" | "disabled" | "failed";
                                connected_at: string | null;
                                last_synced_at: string | null;
                                /** @description Companies the CRM holds for this workspace */
                                synced: number;
                                /** @description Deliveries the CRM would not take */
                                failed: number;
                                last_error: string | null;
                                settings: {
                                    /** @description Only organisations scoring at least this much; null: any score */
                                    min_score: number | null;
                                    /** @description Only organisations in this segment; null: any */
                                    segment_uuid: string | null;
                                };
                                backfill: {
                                    /** Format: date-time */
                                    started_at: string;
                                    finished_at: string | null;
                                    total: number;
                                    done: number;
                                } | null;
                            }[];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/integrations/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Connect a CRM, or change its connection (admins)
         * @description A token is checked with one call to the CRM before it is stored (encrypted); it is never returned. Without a token, changes the settings of an existing connection.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description HubSpot: a private app access token; Pipedrive: an API token. Never shown again. */
                        token?: string;
                        enabled?: boolean;
                        settings?: {
                            /** @description Only organisations scoring at least this much; null: any score */
                            min_score?: number | null;
                            /** @description Only organisations in this segment; null: any */
                            segment_uuid?: string | null;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** Integration */
                            data: {
                                name: "hubspot" | "pipedrive";
                                enabled: boolean;
                                /** @description syncing: a backfill is under way; disabled: paused by an admin; failed: the CRM refused the token (see last_error), nothing is sent until it is replaced */
                                status: "not_connected" | "connected" | "syncing" | "disabled" | "failed";
                                connected_at: string | null;
                                last_synced_at: string | null;
                                /** @description Companies the CRM holds for this workspace */
                                synced: number;
                                /** @description Deliveries the CRM would not take */
                                failed: number;
                                last_error: string | null;
                                settings: {
                                    /** @description Only organisations scoring at least this much; null: any score */
                                    min_score: number | null;
                                    /** @description Only organisations in this segment; null: any */
                                    segment_uuid: string | null;
                                };
                                backfill: {
                                    /** Format: date-time */
                                    started_at: string;
                                    finished_at: string | null;
                                    total: number;
                                    done: number;
                                } | null;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        post?: never;
        /** Disconnect a CRM (admins): its token and everything still to send go */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/integrations/{name}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sync every qualifying organisation now (admins)
         * @description Queues a backfill of every organisation that qualifies; its progress is the connection’s `backfill`.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** Integration */
                            data: {
                                name: "hubspot" | "pipedrive";
                                enabled: boolean;
                                /** @description syncing: a backfill is under way; disabled: paused by an admin; failed: the CRM refused the token (see last_error), nothing is sent until it is replaced */
                                status: "not_connected" | "connected" | "syncing" | "disabled" | "failed";
                                connected_at: string | null;
                                last_synced_at: string | null;
                                /** @description Companies the CRM holds for this workspace */
                                synced: number;
                                /** @description Deliveries the CRM would not take */
                                failed: number;
                                last_error: string | null;
                                settings: {
                                    /** @description Only organisations scoring at least this much; null: any score */
                                    min_score: number | null;
                                    /** @description Only organisations in this segment; null: any */
                                    segment_uuid: string | null;
                                };
                                backfill: {
                                    /** Format: date-time */
                                    started_at: string;
                                    finished_at: string | null;
                                    total: number;
                                    done: number;
                                } | null;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/contacts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the people who identified themselves, most recently seen first */
        get: {
            parameters: {
                query: {
                    page: number;
                    size: number;
                    /** @description only contacts of this organisation */
                    organisation_uuid?: string;
                    /** @description the organisation's domain, or the email address's domain (a subdomain matches its parent) */
                    domain?: string;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: components["schemas"]["Contact"][];
                            first_page_url: string;
                            from: number;
                            last_page: number;
                            last_page_url: string;
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number;
                            total: number;
                            success: boolean;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/contacts/{contactUuid}/reveal-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * A contact with its e-mail address (the hosted service's reveal call)
         * @description Nothing is hidden in Footfall: a contact is a person who identified themselves on the workspace's own site, and every answer already carries the address. This answers the contact as the list shows it, changes nothing and costs nothing, for clients written against the hosted service. No body.
         */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    contactUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: components["schemas"]["Contact"];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/organisations.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the organisations of a list as CSV (all of them, no paging)
         * @description Takes the organisations list's filters, and `filters`: the segment grammar as JSON, as POST .../organisations takes it. Cells starting with = + - @ are prefixed with '.
         */
        get: {
            parameters: {
                query?: {
                    /** @description name contains */
                    name?: string;
                    /** @description seen on or after this day (YYYY-MM-DD, UTC) */
                    date_from?: string;
                    /** @description seen on or before this day (YYYY-MM-DD, UTC) */
                    date_to?: string;
                    /** @description members of this segment */
                    segmentUuid?: string;
                    /** @description carries this tag (any case) */
                    tag?: string;
                    /** @description segment filters as JSON (the grammar of POST .../organisations), ANDed */
                    filters?: string;
                    /** @description score, last_seen, sessions or name; a leading - for descending (default -last_seen) */
                    sort?: string;
                    /** @description owned by this member (a uuid), or `me` for the caller */
                    owner?: string;
                    /** @description lead, customer, competitor, hidden (comma-separated for several); default lead only */
                    status?: string;
                    /** @description every status, not only leads (when `status` is not given) */
                    include_all?: boolean;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description text/csv; charset=utf-8, a header row first (RFC 4180) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/csv": string;
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/sessions.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the sessions of a list as CSV (all of them: no paging, no caps)
         * @description Takes the sessions list’s filters; dates are optional (default: all).
         */
        get: {
            parameters: {
                query?: {
                    /** @description one day; not with date_from or date_to (YYYY-MM-DD, UTC) */
                    date?: string;
                    /** @description first day, inclusive (YYYY-MM-DD, UTC) */
                    date_from?: string;
                    /** @description last day, inclusive; default today (YYYY-MM-DD, UTC) */
                    date_to?: string;
                    url?: string;
                    referrer?: string;
                    visitor_uuid?: string;
                    segmentUuid?: string;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description text/csv; charset=utf-8, a header row first (RFC 4180) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/csv": string;
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/radar/operator/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show the webhook delivery target of all your workspaces */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** @description Empty while delivery is switched off */
                            data: {
                                delivery: {
                                    webhook_url: string;
                                    /** @description sha256= + hex HMAC-SHA256 of webhook_url keyed with the secret */
                                    signature: string;
                                    /** @description the kinds that are sent (every kind unless a choice was saved) */
                                    events: ("session.ended" | "event.tracked" | "organisation.identified" | "organisation.returned" | "segment.entered")[];
                                };
                            }[];
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Configure the webhook delivery target of all your workspaces */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        delivery: {
                            webhook_url: string | null;
                            webhook_secret?: string;
                            mode?: "session" | "event";
                            /** @description The kinds to send, at least one (to stop sending, set webhook_url to null). Every kind by default; kept when omitted. Choosing every kind includes kinds added later. */
                            events?: ("session.ended" | "event.tracked" | "organisation.identified" | "organisation.returned" | "segment.entered")[];
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** @description Empty while delivery is switched off */
                            data: {
                                delivery: {
                                    webhook_url: string;
                                    /** @description sha256= + hex HMAC-SHA256 of webhook_url keyed with the secret */
                                    signature: string;
                                    /** @description the kinds that are sent (every kind unless a choice was saved) */
                                    events: ("session.ended" | "event.tracked" | "organisation.identified" | "organisation.returned" | "segment.entered")[];
                                };
                            }[];
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/radar/operator/v1/webhooks/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Recent webhook deliveries, newest first, with their state
         * @description Optionally only those with one `status` (pending, delivered or failed).
         */
        get: {
            parameters: {
                query: {
                    page: number;
                    size: number;
                    status?: "pending" | "delivered" | "failed";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: {
                                /**
                                 * Format: uuid
                                 * @description the X-Footfall-Delivery header, the same on every retry and redelivery
                                 */
                                uuid: string;
                                /** @description the kind, or `ping` for a test delivery */
                                event: string;
                                workspace_uuid: string | null;
                                status: "pending" | "delivered" | "failed";
                                /** @description attempts in the current round */
                                attempts: number;
                                last_status_code: number | null;
                                last_error: string;
                                next_attempt_at: string | null;
                                created_at: string;
                                delivered_at: string | null;
                                /** @description how many times it was asked to be sent again */
                                redeliveries: number;
                                redelivered_at: string | null;
                            }[];
                            first_page_url: string;
                            from: number;
                            last_page: number;
                            last_page_url: string;
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number;
                            total: number;
                            success: boolean;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/radar/operator/v1/webhooks/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed test ping to your webhook target
         * @description Queues a `ping` delivery (X-Footfall-Event: ping) to the configured target and answers 202 with it at once; the worker sends it within a second, signed and retried like every delivery, and the deliveries log shows how it went. Its uuid is the X-Footfall-Delivery header the receiver sees. 422 when no target is configured.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                            /** WebhookDelivery */
                            data: {
                                /**
                                 * Format: uuid
                                 * @description the X-Footfall-Delivery header, the same on every retry and redelivery
                                 */
                                uuid: string;
                                /** @description the kind, or `ping` for a test delivery */
                                event: string;
                                workspace_uuid: string | null;
                                status: "pending" | "delivered" | "failed";
                                /** @description attempts in the current round */
                                attempts: number;
                                last_status_code: number | null;
                                last_error: string;
                                next_attempt_at: string | null;
                                created_at: string;
                                delivered_at: string | null;
                                /** @description how many times it was asked to be sent again */
                                redeliveries: number;
                                redelivered_at: string | null;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/radar/operator/v1/webhooks/deliveries/{uuid}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a past delivery again, with the same delivery id and body
         * @description A delivered or failed delivery starts a new round of attempts: the same X-Footfall-Delivery id and body, a fresh timestamp and signature. Answers 202 with the delivery as the log shows it (pending, attempts 0, redeliveries counted). 404 for a delivery that is not yours, or of a workspace you are no longer a member of (whether or not a target is configured); 409 while it is still pending; 422 when no target is configured.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    uuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                            /** WebhookDelivery */
                            data: {
                                /**
                                 * Format: uuid
                                 * @description the X-Footfall-Delivery header, the same on every retry and redelivery
                                 */
                                uuid: string;
                                /** @description the kind, or `ping` for a test delivery */
                                event: string;
                                workspace_uuid: string | null;
                                status: "pending" | "delivered" | "failed";
                                /** @description attempts in the current round */
                                attempts: number;
                                last_status_code: number | null;
                                last_error: string;
                                next_attempt_at: string | null;
                                created_at: string;
                                delivered_at: string | null;
                                /** @description how many times it was asked to be sent again */
                                redeliveries: number;
                                redelivered_at: string | null;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspace's notification rules */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                enabled: boolean;
                                /** @description What sends the alert (contract §15) */
                                trigger: "organisation.visited" | "segment.entered" | "page.visited" | "digest.daily" | "digest.weekly";
                                filter: {
                                    segment_uuid: string | null;
                                    url_contains: string | null;
                                    owner: string | null;
                                };
                                /** @description As given, without secrets: a Slack URL is masked, a secret never shown */
                                channel: {
                                    type: "email" | "slack" | "webhook";
                                    to?: string[];
                                    to_owner?: boolean;
                                    /** @description slack: masked, the URL is a secret */
                                    webhook_url?: string;
                                    url?: string;
                                    secret_set?: boolean;
                                };
                                timezone: string;
                                created_at: string;
                                updated_at: string;
                            }[];
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        /** Create a notification rule (alerts and digests, contract §15) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name: string;
                        enabled?: boolean;
                        /** @description What sends the alert (contract §15) */
                        trigger: "organisation.visited" | "segment.entered" | "page.visited" | "digest.daily" | "digest.weekly";
                        filter?: {
                            segment_uuid?: string | null;
                            url_contains?: string | null;
                            owner?: string | null;
                        };
                        channel: {
                            type: "email" | "slack" | "webhook";
                            /** @description email: 1 to 20 addresses (0 to 20 with to_owner: used when there is no owner) */
                            to?: string[];
                            /** @description email: to the organisation's owner (contract §17) */
                            to_owner?: boolean;
                            /** @description slack: the incoming-webhook URL (kept secret, shown masked) */
                            webhook_url?: string;
                            /** @description webhook: the receiver */
                            url?: string;
                            /** @description webhook: the signing secret (never returned) */
                            secret?: string;
                        };
                        /** @description An IANA time zone */
                        timezone?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** NotificationRule */
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                enabled: boolean;
                                /** @description What sends the alert (contract §15) */
                                trigger: "organisation.visited" | "segment.entered" | "page.visited" | "digest.daily" | "digest.weekly";
                                filter: {
                                    segment_uuid: string | null;
                                    url_contains: string | null;
                                    owner: string | null;
                                };
                                /** @description As given, without secrets: a Slack URL is masked, a secret never shown */
                                channel: {
                                    type: "email" | "slack" | "webhook";
                                    to?: string[];
                                    to_owner?: boolean;
                                    /** @description slack: masked, the URL is a secret */
                                    webhook_url?: string;
                                    url?: string;
                                    secret_set?: boolean;
                                };
                                timezone: string;
                                created_at: string;
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Show a notification rule */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    ruleUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** NotificationRule */
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                enabled: boolean;
                                /** @description What sends the alert (contract §15) */
                                trigger: "organisation.visited" | "segment.entered" | "page.visited" | "digest.daily" | "digest.weekly";
                                filter: {
                                    segment_uuid: string | null;
                                    url_contains: string | null;
                                    owner: string | null;
                                };
                                /** @description As given, without secrets: a Slack URL is masked, a secret never shown */
                                channel: {
                                    type: "email" | "slack" | "webhook";
                                    to?: string[];
                                    to_owner?: boolean;
                                    /** @description slack: masked, the URL is a secret */
                                    webhook_url?: string;
                                    url?: string;
                                    secret_set?: boolean;
                                };
                                timezone: string;
                                created_at: string;
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a notification rule with its delivery log */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    ruleUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            message: string;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a notification rule; fields left out are kept, and a channel of the same type keeps its secret when it is left out */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    ruleUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        name?: string;
                        enabled?: boolean;
                        /** @description What sends the alert (contract §15) */
                        trigger?: "organisation.visited" | "segment.entered" | "page.visited" | "digest.daily" | "digest.weekly";
                        filter?: {
                            segment_uuid?: string | null;
                            url_contains?: string | null;
                            owner?: string | null;
                        };
                        channel?: {
                            type: "email" | "slack" | "webhook";
                            /** @description email: 1 to 20 addresses (0 to 20 with to_owner: used when there is no owner) */
                            to?: string[];
                            /** @description email: to the organisation's owner (contract §17) */
                            to_owner?: boolean;
                            /** @description slack: the incoming-webhook URL (kept secret, shown masked) */
                            webhook_url?: string;
                            /** @description webhook: the receiver */
                            url?: string;
                            /** @description webhook: the signing secret (never returned) */
                            secret?: string;
                        };
                        /** @description An IANA time zone */
                        timezone?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** NotificationRule */
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                name: string;
                                enabled: boolean;
                                /** @description What sends the alert (contract §15) */
                                trigger: "organisation.visited" | "segment.entered" | "page.visited" | "digest.daily" | "digest.weekly";
                                filter: {
                                    segment_uuid: string | null;
                                    url_contains: string | null;
                                    owner: string | null;
                                };
                                /** @description As given, without secrets: a Slack URL is masked, a secret never shown */
                                channel: {
                                    type: "email" | "slack" | "webhook";
                                    to?: string[];
                                    to_owner?: boolean;
                                    /** @description slack: masked, the URL is a secret */
                                    webhook_url?: string;
                                    url?: string;
                                    secret_set?: boolean;
                                };
                                timezone: string;
                                created_at: string;
                                updated_at: string;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a sample alert at once (through the outbox, marked as a test, about a sample organisation)
         * @description At most 10 test sends a minute per workspace, whatever the channel. An e-mail rule's test is also one e-mail per address of the mail budget (MAIL_PER_USER_PER_MINUTE, MAIL_PER_WORKSPACE_PER_MINUTE). Beyond either, 429 with Retry-After, and nothing is queued.
         */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                    ruleUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** NotificationDelivery */
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                /** @description the trigger that caused it */
                                kind: string;
                                test: boolean;
                                organisation_uuid: string | null;
                                url: string | null;
                                status: "pending" | "delivered" | "failed";
                                attempts: number;
                                last_status_code: number | null;
                                last_error: string;
                                next_attempt_at: string | null;
                                created_at: string;
                                delivered_at: string | null;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/notifications/{ruleUuid}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The rule's deliveries, newest first, with their state */
        get: {
            parameters: {
                query: {
                    page: number;
                    size: number;
                };
                header?: never;
                path: {
                    workspaceUuid: string;
                    ruleUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            current_page: number;
                            data: {
                                /** Format: uuid */
                                uuid: string;
                                /** @description the trigger that caused it */
                                kind: string;
                                test: boolean;
                                organisation_uuid: string | null;
                                url: string | null;
                                status: "pending" | "delivered" | "failed";
                                attempts: number;
                                last_status_code: number | null;
                                last_error: string;
                                next_attempt_at: string | null;
                                created_at: string;
                                delivered_at: string | null;
                            }[];
                            first_page_url: string;
                            from: number;
                            last_page: number;
                            last_page_url: string;
                            next_page_url: string | null;
                            path: string;
                            per_page: number;
                            prev_page_url: string | null;
                            to: number;
                            total: number;
                            success: boolean;
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{workspaceUuid}/my-digest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The caller's own "My accounts" daily digest (contract §17) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** MyDigest */
                            data: {
                                enabled: boolean;
                                /** @description the 07:00 it is sent at is in this zone */
                                timezone: string;
                                rule_uuid: string | null;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        /** Switch the caller's "My accounts" digest on or off (any member): each morning, the organisations they own that visited, highest score first, with what they read */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    workspaceUuid: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        enabled: boolean;
                        timezone?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            success: boolean;
                            /** MyDigest */
                            data: {
                                enabled: boolean;
                                /** @description the 07:00 it is sent at is in this zone */
                                timezone: string;
                                rule_uuid: string | null;
                            };
                        };
                    };
                };
                /** @description Every error answer (contract §2). */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
                /** @description Every error answer (contract §2). */
                429: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ErrorBody"];
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description Every error answer (contract §2). */
        ErrorBody: {
            /** @enum {boolean} */
            success: false;
            message: string;
            errors?: {
                [key: string]: string[];
            };
        };
        Workspace: {
            /** Format: uuid */
            uuid: string;
            name: string;
            url: string;
            /** @description "" after unlink */
            tracking_script_id: string;
            /** @description HTML to paste into every page; "" after unlink */
            tracking_script_snippet: string;
            available_tags: string[];
            status: "active" | "inactive";
            /** @description New organisations per calendar month (UTC), as a decimal string */
            usage_limit: string;
        };
        TrackerFeatures: {
            form_tracking: boolean;
            click_tracking: boolean;
            download_tracking: boolean;
        };
        PrivacySettings: {
            /** @description Browsers sending Global Privacy Control (Sec-GPC: 1, navigator.globalPrivacyControl) are not tracked */
            honor_gpc: boolean;
        };
        CustomField: {
            /** Format: uuid */
            identifier: string;
            key: string;
            name: string;
            /** @enum {string} */
            entity_type: "organisation";
            type: "text" | "number" | "date" | "boolean" | "select" | "multi_select" | "url" | "email";
            description: string;
            group: string;
            is_visible: boolean;
            source: string;
            rules: {
                type: "required" | "min_length" | "max_length" | "min" | "max" | "pattern";
                config: {
                    [key: string]: unknown;
                };
            }[];
            is_system: boolean;
            options: {
                key: string;
                label: string;
                /** @description hex colour */
                color: string;
            }[];
            visible_in_spotter: boolean;
        };
        CustomFieldValue: {
            /** @description The definition's `identifier` (a UUID) for a custom field; the key itself for a profile field, which has no definition */
            field_identifier: string;
            field_key: string;
            field_type: "text" | "number" | "date" | "boolean" | "select" | "multi_select" | "url" | "email";
            /** @description As the field's type: string, number, boolean, `YYYY-MM-DD`, an option key, a list of option keys; profile fields are strings, `""` when unknown */
            value: unknown;
            /** @description `manual`: set through the API; `fixed`: the organisation's own profile field (read-only) */
            source: "manual" | "fixed";
            /** @description ISO 8601. When the value was last set; for a profile field, when the company directory last updated it (the organisation's creation when it has no profile) */
            updated_at: string;
        };
        /** @description A group of conditions joined by AND or OR; groups nest. Fields, comparisons and value types: docs/segments.md. */
        SegmentFilters: {
            operator: "AND" | "OR";
            /** @description Conditions and nested groups */
            conditions: ({
                /** @description A built-in field (docs/segments.md) or a custom field key */
                field: string;
                comparison: "equal" | "not_equal" | "contains" | "not_contains" | "starts_with" | "doesnt_start_with" | "ends_with" | "doesnt_end_with" | "in" | "not_in" | "greater_than" | "greater_than_or_equal" | "less_than" | "less_than_or_equal" | "between" | "not_between" | "less_than_x_units_ago" | "more_than_x_units_ago" | "set" | "not_set" | "is_true" | "is_false";
                /** @description Text, number or YYYY-MM-DD date; a list for in/not_in; [low, high] (inclusive) for between/not_between; none for set/not_set/is_true/is_false */
                value?: unknown;
                /** @description For *_x_units_ago, default days; singular or plural, stored in the plural */
                unit?: "second" | "seconds" | "minute" | "minutes" | "hour" | "hours" | "day" | "days" | "week" | "weeks" | "month" | "months" | "year" | "years" | null;
            } | components["schemas"]["SegmentFilters"])[];
        };
        Segment: {
            /** Format: uuid */
            uuid: string;
            name: string;
        };
        SegmentWithFilters: {
            /** Format: uuid */
            uuid: string;
            name: string;
            filters: components["schemas"]["SegmentFilters"];
        };
        /** @description Fields that do not apply to the event_type are omitted. */
        SessionEvent: {
            event_type: "pageview" | "form_submit" | "form_abandon" | "click" | "download" | "custom";
            url: string;
            /** Format: date-time */
            triggered_at: string;
            /** @description pageview: seconds on the page */
            time_on_page?: number;
            form_id?: string;
            form_name?: string;
            /** @description form events: seconds in the form */
            time_spent?: number;
            fields?: {
                name: string;
                value: string;
            }[];
            /** @description custom: the event name */
            name?: string;
            properties?: {
                name: string;
                value: string;
            }[];
        };
        Session: {
            /** Format: uuid */
            uuid: string;
            /** Format: uuid */
            organisation_uuid: string;
            /** Format: uuid */
            visitor_uuid: string;
            /** Format: date-time */
            started_at: string;
            /** Format: date-time */
            ended_at: string;
            location: {
                country: string;
                state: string;
                city: string;
                latitude: number;
                longitude: number;
            };
            browser: string;
            referrer: string;
            /** @description Where the visit came from: the landing page's utm_source (lower case), else the referrer's registrable domain, else `direct` (docs/api.md, Sessions) */
            source: string;
            device_type: string;
            views: {
                /** Format: date-time */
                visited_at: string;
                time_on_page: number;
                url: string;
            }[];
            events: components["schemas"]["SessionEvent"][];
        };
        Organisation: {
            /** Format: uuid */
            uuid: string;
            name: string;
            website: string;
            /** @description ISO 8601 */
            first_seen: string;
            /** @description ISO 8601 */
            last_seen: string;
            profiles: {
                name: string;
                handle: string;
                url: string;
            }[];
            tags: string[];
            segments: {
                /** Format: uuid */
                uuid: string;
                name: string;
            }[];
            unique_visitor_count: number;
            logo: string;
            address: {
                street: string;
                address: string;
                full_address: string;
                city: string;
                state: string;
                street_number: string;
                postal_code: string;
                country: string;
                latitude: string;
                longitude: string;
            };
            founded: string;
            size: string;
            industry: string;
            phone: string;
            email: string;
            total_pageviews: number;
            /** @description its attributed sessions (Footfall addition) */
            total_sessions: number;
            /** @description H:MM:SS, hours unbounded */
            total_time_on_site: string;
            /** @description "City, Country" labels */
            visitor_locations: string[];
            custom_fields: {
                [key: string]: unknown;
            };
            /** @description Beyond the seed: how this organisation was identified */
            identification: {
                /** @description How the organisation was found: a business e-mail domain, the operator’s IP ranges, the network owner, the visitor address’s reverse DNS name or its network’s registration (RDAP); unknown for organisations from before this was recorded */
                method: "email_domain" | "ip_range" | "network_owner" | "reverse_dns" | "registration" | "unknown";
                /** @description What the method went on; its fields are described in the identification docs */
                evidence: {
                    [key: string]: unknown;
                };
            };
            /** @description Beyond the seed: what the company says it does ("" when unknown) */
            description: string;
            /** @description Beyond the seed: where the profile comes from; the directory wins field by field */
            profile_source: {
                /** @description the company directory has an entry for it */
                directory: boolean;
                /** @description the homepage its profile was read from, after redirects; null if none */
                website: string | null;
                /** @description ISO 8601: when that page was read */
                fetched_at: string | null;
            };
            /** @description Beyond the seed: the lead score (contract §17), from the scoring rules */
            score: number;
            /** @description Beyond the seed: the rules and key pages that gave the score, largest first */
            score_reasons: {
                reason: string;
                points: number;
            }[];
            /** @description Beyond the seed: the workspace member who owns it, or null */
            owner: {
                /** Format: uuid */
                uuid: string;
                name: string;
                email: string;
            } | null;
            /** @description Beyond the seed: lead (default), customer, competitor or hidden; only leads are listed unless asked */
            status: "lead" | "customer" | "competitor" | "hidden";
        };
        Contact: {
            /** Format: uuid */
            uuid: string;
            email: string;
            /** @description What identify() sent along, merged over time (later values win) */
            traits: {
                [key: string]: unknown;
            };
            /** @description The organisation of the visit that identified them; null when none */
            organisation_uuid: string | null;
            /** @description The visitor ids (browsers) they identified from */
            visitor_uuids: string[];
            /** @description ISO 8601; their first session, earlier visits included */
            first_seen: string;
            /** @description ISO 8601; the end of their latest session */
            last_seen: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
