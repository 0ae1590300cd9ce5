export {
  USER_TOKEN_HEADER,
  USER_TOKEN_PARAM,
  userTokenError,
  userTokenOutcome,
  userTokens,
  type RefusedUserTokenOutcome,
  type RequestUserToken,
  type UserTokenOutcome,
  type UserTokens,
} from './gate';
export {
  USER_TOKEN_CLOCK_SKEW_S,
  USER_TOKEN_MAX_CHARS,
  USER_TOKEN_MAX_LIFETIME_S,
  createUserTokenVerifier,
  type UserTokenCheck,
  type UserTokenVerifier,
} from './verify';
export { withUserToken } from './openapi';
