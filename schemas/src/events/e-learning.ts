import { opt, req, t, type EventDef } from '../dsl/types';

/** E-learning block events (spec 6, E-learning). */
const questionEvent: EventDef = {
  event: 'question',
  block: 'e_learning',
  name: 'QuestionProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('question_action', ['answer', 'skip'], { extensions: ['other'] })),
    // causalfoundry/ios-sdk sends no answer_id for skip (encodeIfPresent of nil).
    answer_id: req(t.string, { client: { mayOmit: true } }),
    exam_id: req(t.string),
  },
};

const examEvent: EventDef = {
  event: 'exam',
  block: 'e_learning',
  name: 'ExamProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('exam_action', ['start', 'submit', 'result'], { extensions: ['other'] })),
    // causalfoundry/ios-sdk sends each only when it has one: duration with submit, score and
    // is_passed with result.
    is_passed: req(t.boolean, { client: { mayOmit: true } }),
    score: req(t.float, { client: { mayOmit: true } }),
    duration: req(t.int, { doc: 'seconds', min: 0, client: { mayOmit: true } }),
  },
};

const moduleEvent: EventDef = {
  event: 'module',
  block: 'e_learning',
  name: 'ModuleProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('module_action', ['view'], { extensions: ['other'] })),
    progress: opt(t.int),
  },
};

export const eLearningEvents: EventDef[] = [questionEvent, examEvent, moduleEvent];
